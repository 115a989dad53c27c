"""Short host outputs pasted into tickets (``cat /proc/driver/nvidia/version``, ``uname``,
``nvidia-ctk --version``, ``nvidia-container-cli info``, ``lsmod | grep``, ``systemctl status``
with its journal tail, ``helm get values`` with ``driver.enabled=false``, ``kubectl logs
--timestamps`` and stern) become the host facts and objects the node and operator checks read;
what a grep cut away stays unknown."""

from __future__ import annotations

from gpuxray.checks.engine import run_all
from gpuxray.engines.nodefacts import node_facts
from gpuxray.model.finding import Status
from gpuxray.sources.parsers import cleanup, hostcmds, paste
from gpuxray.sources.pasted import CMD, PROC_DRIVER_VERSION, TextInput, paste_evidence

PROC_VERSION = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  "
                "Fri May 31 09:35:42 UTC 2024\n"
                "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")
OPEN_VERSION = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  "
                "Release Build  (dvs-builder@U22-I3-AF03-09-1)  Tue Sep 23 09:37:47 UTC 2025\n")
CLI_INFO = """\
NVRM version:   535.129.03
CUDA version:   12.2

Device Index:   0
Device Minor:   0
Model:          NVIDIA A100-SXM4-80GB
Brand:          Nvidia
GPU UUID:       GPU-5a2c1f0e-0c4e-4f63-9b1f-0d9c0ad1e111
Bus Location:   00000000:07:00.0
Architecture:   8.0

Device Index:   1
Device Minor:   1
Model:          NVIDIA A100-SXM4-80GB
Brand:          Nvidia
GPU UUID:       GPU-5a2c1f0e-0c4e-4f63-9b1f-0d9c0ad1e222
Bus Location:   00000000:0F:00.0
Architecture:   8.0
"""
LSMOD_NOUVEAU = "nouveau              2355200  0\nmxm_wmi                12288  1 nouveau\n"


def _evidence(text: str):  # type: ignore[no-untyped-def]
    return paste_evidence([TextInput("paste", text)])


def _host(text: str):  # type: ignore[no-untyped-def]
    ev = _evidence(text)
    (host,) = ev.snapshot.hosts.values()
    return ev, host


def _facts(text: str):  # type: ignore[no-untyped-def]
    (nf,) = node_facts(_evidence(text).snapshot).values()
    return nf


def test_proc_driver_version_is_the_host_file_in_both_module_flavours() -> None:
    for body, want in ((PROC_VERSION, "550.90.07"), (OPEN_VERSION, "580.95.05")):
        _ev, host = _host("$ cat /proc/driver/nvidia/version\n" + body)
        assert host.files[PROC_DRIVER_VERSION].startswith("NVRM version:")
        nf = _facts("$ cat /proc/driver/nvidia/version\n" + body)
        assert nf.driver_version is not None and nf.driver_version[0] == want
    # unnamed, inside other output: still the file
    assert [p.kind for p in paste.split_paste(PROC_VERSION)] == [paste.DRIVER_VERSION]
    # inside a longer block (a bug report's section, a script's output): still the file
    text = "some log line\n" + PROC_VERSION + "more output\n"
    assert [p.kind for p in paste.split_paste(text)] == [paste.TEXT]
    assert _facts(text).driver_version[0] == "550.90.07"


def test_a_loaded_host_driver_is_not_reported_missing() -> None:
    """driver.enabled=false and the module's version file pasted: the host driver is loaded,
    so the operator's host-driver check has nothing to say (GX403 needs a failure)."""
    text = ("$ helm get values gpu-operator -n gpu-operator\nUSER-SUPPLIED VALUES:\n"
            "driver:\n  enabled: false\n"
            "$ cat /proc/driver/nvidia/version\n" + PROC_VERSION)
    ev = _evidence(text)
    (cp,) = ev.snapshot.clusterpolicies
    assert cp.spec["driver"] == {"enabled": False}
    fails = [f.code for f in run_all(ev.snapshot) if f.status is Status.FAIL]
    assert "GX403" not in fails


def test_helm_get_values_of_one_section_is_the_operators_values() -> None:
    """`helm get values <release>` of the operator's release may hold one section only."""
    ev = _evidence("$ helm get values gpu-operator -n gpu-operator\nUSER-SUPPLIED VALUES:\n"
                   "driver:\n  enabled: false\n")
    assert [c.spec for c in ev.snapshot.clusterpolicies] == [{"driver": {"enabled": False}}]
    # an unrelated release's single section is not taken for the operator's
    other = _evidence("$ helm get values prometheus\nUSER-SUPPLIED VALUES:\n"
                      "driver:\n  enabled: false\n")
    assert other.snapshot.clusterpolicies == []


def test_container_cli_info_lists_the_gpus() -> None:
    info = hostcmds.parse_container_cli_info(CLI_INFO)
    assert info is not None
    assert (info.driver, info.cuda) == ("535.129.03", "12.2")
    assert [(g.index, g.bus, g.uuid[-3:]) for g in info.gpus] == [
        (0, "00000000:07:00.0", "111"), (1, "00000000:0F:00.0", "222")]
    for text in ("$ nvidia-container-cli info\n" + CLI_INFO,
                 "nvidia-container-cli -k -d /dev/tty info\n" + CLI_INFO, CLI_INFO):
        assert [p.kind for p in paste.split_paste(text)] == [paste.CONTAINER_CLI]
        smi = _facts(text).smi
        assert smi is not None and len(smi.gpus) == 2
    v = hostcmds.parse_container_cli_info("cli-version: 1.17.8\nlib-version: 1.17.8\n")
    assert v is not None and (v.cli_version, v.gpus) == ("1.17.8", ())


def test_ctk_version_and_uname() -> None:
    text = "NVIDIA Container Toolkit CLI version 1.18.0\ncommit: f8daa5e26de9fd7eb\n"
    assert hostcmds.ctk_version(text) == "1.18.0"
    assert [p.kind for p in paste.split_paste("$ nvidia-ctk --version\n" + text)] == [
        paste.CTK_VERSION]
    assert [p.kind for p in paste.split_paste(text)] == [paste.CTK_VERSION]
    assert hostcmds.uname_release("5.14.0-570.112.1.el9_6.x86_64\n") == \
        "5.14.0-570.112.1.el9_6.x86_64"
    full = "Linux gpu-1 6.8.0-48-generic #48-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n"
    assert hostcmds.uname_release(full) == "6.8.0-48-generic"
    _ev, host = _host("$ uname -a\n" + full)
    assert host.cmds[CMD.UNAME] == full
    assert [p.kind for p in paste.split_paste("uname -r\n5.15.0-105-generic\n")] == [paste.UNAME]


def test_lsmod_grep_says_only_what_it_kept() -> None:
    assert hostcmds.lsmod_grep("lsmod") is None
    assert hostcmds.lsmod_grep("lsmod | grep nvidia") == ("nvidia",)
    assert hostcmds.lsmod_grep("lsmod | grep -E 'nvidia|nouveau'") == ("nvidia", "nouveau")
    assert hostcmds.lsmod_grep("lsmod | grep -v nvidia") == ("",)
    # grep nouveau: the nouveau row is evidence (GX506), the absent nvidia row is not
    ev, host = _host("$ lsmod | grep nouveau\n" + LSMOD_NOUVEAU)
    nf = _facts("$ lsmod | grep nouveau\n" + LSMOD_NOUVEAU)
    assert nf.lsmod is not None and "nouveau" in nf.lsmod
    assert ev.lsmod_nvidia_unknown == {host.node}
    # grep nvidia printing nothing but its prompt's next command: no lsmod filed at all
    _ev, host2 = _host("$ lsmod | grep nvidia\n$ mokutil --sb-state\nSecureBoot enabled\n")
    assert CMD.LSMOD not in host2.cmds
    # grep nvidia with rows: nvidia's state is shown
    ev3, _h = _host("$ lsmod | grep nvidia\nnvidia_uvm   1437696  0\nnvidia  56762368  1 "
                    "nvidia_uvm\n")
    assert ev3.lsmod_nvidia_unknown == set()


def test_a_nouveau_grep_with_secure_boot_on_is_not_a_suspected_signing_failure() -> None:
    """GX507's "Secure Boot on and no nvidia module" reading needs the whole lsmod."""
    text = ("$ lsmod | grep nouveau\n" + LSMOD_NOUVEAU + "$ mokutil --sb-state\n"
            "SecureBoot enabled\n$ dmesg | grep -i nouveau\n"
            "[    4.120000] nouveau 0000:01:00.0: NVIDIA GA102 (172000a1)\n")
    ev = _evidence(text)
    found = [f for f in run_all(ev.snapshot) if f.status is Status.FAIL]
    assert "GX506" in [f.code for f in found]
    suspected = [f for f in found if f.code == "GX507"]
    assert [f.params["suspected"] for f in suspected] == [True]  # the check alone would say so
    assert all(ev.reads_unpasted(f) for f in suspected)
    # the whole lsmod without nvidia does show it
    whole = _evidence(text.replace("$ lsmod | grep nouveau", "$ lsmod"))
    assert whole.lsmod_nvidia_unknown == set()


def test_systemctl_status_journal_tail_is_the_units_journal() -> None:
    text = ("$ systemctl status containerd\n"
            "● containerd.service - containerd container runtime\n"
            "     Loaded: loaded (/lib/systemd/system/containerd.service; enabled)\n"
            "     Active: activating (auto-restart) (Result: exit-code) since Mon 2026-11-30 "
            "10:00:05 UTC; 2s ago\n"
            "Nov 30 10:00:05 gpu-1 systemd[1]: containerd.service: Main process exited, "
            "code=exited, status=1/FAILURE\n"
            "Nov 30 10:00:05 gpu-1 systemd[1]: containerd.service: Failed with result "
            "'exit-code'.\n")
    _ev, host = _host(text)
    assert "ActiveState=activating" in host.cmds[CMD.SYSTEMCTL_CONTAINERD]
    assert "Main process exited" in host.cmds[CMD.JOURNAL_CONTAINERD]


def test_log_timestamps_and_stern_prefixes_come_off() -> None:
    lines = ["2024-05-01T10:00:00.123456789Z time=\"x\" level=info msg=\"Starting\"",
             "2024-05-01T10:00:01.5+02:00 second line"]
    assert cleanup.strip_log_timestamps(lines) == ['time="x" level=info msg="Starting"',
                                                   "second line"]
    # a container log file read on the node: the CRI format's stream and tag come off too
    assert cleanup.strip_log_timestamps(["2024-05-01T10:00:00.5+00:00 stderr F full",
                                         "2024-05-01T10:00:00.6Z stdout P part"]) == [
        "full", "part"]
    assert cleanup.strip_log_timestamps(["2024-05-01T10:00:00Z one", "two", "three"]) == [
        "2024-05-01T10:00:00Z one", "two", "three"]
    stern = ["nvidia-device-plugin-daemonset-x7k2p nvidia-device-plugin-ctr I1201 Starting FS "
             "watcher."]
    assert cleanup.stern_to_prefixed(stern) == [
        "[pod/nvidia-device-plugin-daemonset-x7k2p/nvidia-device-plugin-ctr] I1201 Starting FS "
        "watcher."]
    text = ("$ kubectl get pods -n gpu-operator\n"
            "nvidia-device-plugin-daemonset-x7k2p   0/1   CrashLoopBackOff   4   5m\n"
            "$ stern -n gpu-operator nvidia-device-plugin\n" + stern[0] + "\n")
    logs = _evidence(text).snapshot.logs
    assert list(logs) == [("gpu-operator", "nvidia-device-plugin-daemonset-x7k2p",
                           "nvidia-device-plugin-ctr")]


def test_k9s_log_borders_come_off() -> None:
    lines = ["│ config-manager time=\"t\" level=info msg=\"Waiting\"   ",
             "│ config-manager time=\"t\" level=info msg=\"Updating\""]
    assert cleanup.clean_lines(lines) == ['config-manager time="t" level=info msg="Waiting"',
                                          'config-manager time="t" level=info msg="Updating"']


LSPCI_K = """\
01:00.0 VGA compatible controller: NVIDIA Corporation GA102 [GeForce RTX 3090] (rev a1)
\tSubsystem: eVga.com. Corp. Device 3987
\tKernel driver in use: {driver}
\tKernel modules: nvidiafb, nouveau, nvidia_drm, nvidia
01:00.1 Audio device: NVIDIA Corporation GA102 High Definition Audio Controller (rev a1)
\tKernel driver in use: snd_hda_intel
\tKernel modules: snd_hda_intel
"""


def test_lspci_k_names_the_driver_bound_to_the_gpu() -> None:
    from gpuxray.sources.parsers import lspci
    assert lspci.bound_drivers(LSPCI_K.format(driver="nouveau")) == [("01:00.0", "nouveau", 3)]
    nn = ("0000:3b:00.0 3D controller [0302]: NVIDIA Corporation GH100 [H100 SXM5 80GB] "
          "[10de:2330] (rev a1)\n\tKernel driver in use: nvidia\n")
    assert lspci.bound_drivers(nn) == [("0000:3b:00.0", "nvidia", 2)]
    # nouveau bound, no lsmod pasted: the node has nouveau loaded (GX506), nvidia unknown
    ev = _evidence("$ lspci -k -d 10de:\n" + LSPCI_K.format(driver="nouveau"))
    fails = [f for f in run_all(ev.snapshot) if f.status is Status.FAIL]
    assert [f.code for f in fails] == ["GX506"]
    assert fails[0].params["in_lsmod"] is True
    assert ev.lsmod_nvidia_unknown == set(ev.snapshot.hosts)
    # nvidia bound: nothing wrong, and a pasted lsmod is never overridden
    assert [f.code for f in run_all(_evidence(LSPCI_K.format(driver="nvidia")).snapshot)
            if f.status is Status.FAIL] == []
    both = _evidence("$ lsmod\nModule Size Used by\nnvidia 56762368 1\n"
                     "$ lspci -k\n" + LSPCI_K.format(driver="nouveau"))
    (host,) = both.snapshot.hosts.values()
    assert "nouveau" not in host.cmds[CMD.LSMOD]


def test_clusterpolicy_table_gives_the_policy_state() -> None:
    from gpuxray.sources.parsers import tables
    table = ("$ kubectl get clusterpolicies\nNAME             STATUS     AGE\n"
             "cluster-policy   notReady   2024-05-01T10:00:00Z\n")
    assert tables.parse_policy_rows(table) == [("cluster-policy", "notReady")]
    # Kyverno's ClusterPolicy table (ADMISSION BACKGROUND READY …) is not the operator's
    assert tables.parse_policy_rows("NAME  ADMISSION  BACKGROUND  READY  AGE  MESSAGE\n"
                                    "require-labels  true  true  True  5d  Ready\n") == []
    ev = _evidence(table)
    (cp,) = ev.snapshot.clusterpolicies
    assert cp.status.state == "notReady" and ev.status_unknown == set()
    assert [f.code for f in run_all(ev.snapshot) if f.status is Status.FAIL] == ["GX410"]
    # with pasted values: the same policy, its state now known
    ev2 = _evidence("$ helm get values gpu-operator\nUSER-SUPPLIED VALUES:\n"
                    "driver:\n  enabled: false\n" + table)
    (cp2,) = ev2.snapshot.clusterpolicies
    assert (cp2.spec, cp2.status.state) == ({"driver": {"enabled": False}}, "notReady")
    assert ev2.status_unknown == set()
    ready = _evidence(table.replace("notReady", "ready   "))
    assert [f.code for f in run_all(ready.snapshot) if f.status is Status.FAIL] == []
