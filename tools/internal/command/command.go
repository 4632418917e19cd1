// Package command is the shell of the one-shot tools (gen-sdk, goproxy): three arguments in,
// exit 2 on a wrong call, exit 1 with the error on a failed run.
package command

import (
	"fmt"
	"os"
)

// Run calls run with the command's three arguments and exits as the package comment says.
func Run(name, usage string, run func(a, b, c string) error) {
	if len(os.Args) != 4 {
		fmt.Fprintf(os.Stderr, "usage: %s %s\n", name, usage)
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
