// Command etcd is etcd's own entry point (go.etcd.io/etcd/server/v3/etcdmain), built at the
// version k8s.io/kubernetes pins, so the apiserver talks to the etcd it is tested with upstream.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
