from gpuxray.cli.main import main

main()
