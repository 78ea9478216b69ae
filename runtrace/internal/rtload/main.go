// Command rtload is a load generator for runtrace's multi-process test: it
// opens the database given by -db and writes -runs runs of -job, each a
// Begin and a Finish, then exits 0. Any error goes to stderr with exit 1.
// It is built without -race so the concurrency test stays quick.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"svcctl/runtrace"
)

func main() {
	db := flag.String("db", "", "database file")
	job := flag.String("job", "job:load", "job id")
	runs := flag.Int("runs", 500, "runs to write")
	flag.Parse()
	if err := run(*db, *job, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "rtload:", err)
		os.Exit(1)
	}
}

func run(path, job string, runs int) error {
	s, err := runtrace.Open(path, runtrace.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range runs {
		slot := base.Add(time.Duration(i) * time.Minute)
		id, err := s.Begin(ctx, job, runtrace.TriggerSchedule, slot, time.Now())
		if err != nil {
			return err
		}
		if err := s.Finish(ctx, id, runtrace.OutcomeOK, runtrace.ReasonCompleted,
			map[string]int{"i": i}, time.Now()); err != nil {
			return err
		}
	}
	return s.Close()
}
