// Command drill-verdict judges one run of the reboot drill from the evidence
// read back out of the guest: the marker lines of its evidence serial port and
// the svc-ctl database dumped from its disk image after power-off. It prints
// PASS or FAIL per check and exits 0 only when the scenario's verdict is the
// expected one (for the negative self-test: the drill caught the defect).
//
// It must never judge by what is configured ("the unit file exists"), only by
// what the guest saw and recorded.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("drill-verdict", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var in inputs
	fs.StringVar(&in.scenario, "scenario", "", "main | negative | backstop")
	fs.StringVar(&in.markers, "markers", "", "the evidence serial port's log")
	fs.StringVar(&in.db, "db", "", "svc-ctl.db dumped from the guest image (missing: checks that need it fail)")
	fs.StringVar(&in.service, "service", "drillsvc", "the supervised service's name")
	fs.IntVar(&in.qemuExit, "qemu-exit", -1, "qemu's exit status")
	fs.BoolVar(&in.timedOut, "timed-out", false, "the host killed qemu at its deadline")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if in.markers == "" || scenarios[in.scenario] == nil {
		fmt.Fprintln(stderr, "drill-verdict: --markers FILE and --scenario main|negative|backstop are required")
		return 2
	}
	ev := load(in)
	v := scenarios[in.scenario](ev)
	v.print(stdout)
	if !v.expected() {
		return 1
	}
	return 0
}
