// Command crashagent is the agent that dies of a fatal error: it runs the
// real agent on --config, and once the agent's loops run, a goroutine panics
// with nothing to recover it. TestFatalCrashIsReportedOnce builds it to prove
// that such a crash lands in crash.log and is reported at the next start;
// the shipped svc-ctl carries no way to crash on purpose.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"svcctl/agent"
	"svcctl/config"
)

func main() {
	path := flag.String("config", "", "svc-ctl.toml")
	flag.Parse()
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ready := make(chan struct{})
	go func() {
		<-ready
		panic("crashagent: deliberate fatal crash")
	}()
	err = agent.Run(context.Background(), agent.Options{Config: cfg, Version: "crashagent", Ready: ready})
	fmt.Fprintln(os.Stderr, "crashagent: the agent returned:", err)
	os.Exit(1)
}
