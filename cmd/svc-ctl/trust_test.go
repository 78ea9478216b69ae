package main

import (
	"io"
	"slices"
	"sort"
	"testing"

	"github.com/spf13/cobra"
)

// privilegedVerbs are the commands that run, start, stop or signal what a
// config names: each must be declared trustRun, so that it gets
// its config only through config.LoadToRun and its state dir only after
// state.Check. Verbs not written yet are listed too: when one arrives it is
// held to the rule at once. A new privileged verb goes here and is
// declared trustRun; TestPrivilegedVerbs fails until both agree.
var privilegedVerbs = []string{
	"agent", "start", "stop", "restart", "drill", "exec", "run", "pause", "resume", "reload",
	"ui",          // its actions (start, restart, pause, resume) act as root
	"notify test", // a command channel runs a program
}

// runnable returns every command that runs (leaves and runnable parents)
// under root, by command path without the root's name.
func runnable(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Runnable() {
				out[sub.CommandPath()[len(root.Name())+1:]] = sub
			}
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestEveryVerbDeclaresTrust: a command added without a trust level fails
// here (and at run time, in the root's PersistentPreRunE).
func TestEveryVerbDeclaresTrust(t *testing.T) {
	cmds := runnable(newRootCommand(&globals{stdout: io.Discard, stderr: io.Discard}))
	if len(cmds) < 10 {
		t.Fatalf("found only %d commands: the walk is broken", len(cmds))
	}
	for path, c := range cmds {
		switch c.Annotations[trustKey] {
		case trustRun, trustRead, trustNone:
		default:
			t.Errorf("command %q declares no trust level: add Annotations: trust(trustRun|trustRead|trustNone) (see trust.go)", path)
		}
	}
}

// TestPrivilegedVerbs: every privileged verb that exists is declared
// trustRun, and every trustRun command is a listed privileged verb.
func TestPrivilegedVerbs(t *testing.T) {
	cmds := runnable(newRootCommand(&globals{stdout: io.Discard, stderr: io.Discard}))
	for _, v := range privilegedVerbs {
		c, ok := cmds[v]
		if !ok {
			continue // not written yet
		}
		if c.Annotations[trustKey] != trustRun {
			t.Errorf("%q runs or signals what the config names but is declared %q: declare it trustRun", v, c.Annotations[trustKey])
		}
	}
	var run []string
	for path, c := range cmds {
		if c.Annotations[trustKey] == trustRun {
			run = append(run, path)
		}
	}
	sort.Strings(run)
	for _, path := range run {
		if !slices.Contains(privilegedVerbs, path) {
			t.Errorf("%q is declared trustRun but is not in privilegedVerbs: add it there", path)
		}
	}
}

// TestDeclareTrustRefusesUndeclared: a command without a level does not run.
func TestDeclareTrustRefusesUndeclared(t *testing.T) {
	g := &globals{}
	err := declareTrust(g)(&cobra.Command{Use: "newverb"}, nil)
	if err == nil {
		t.Fatal("an undeclared command ran")
	}
	if _, err := loadConfig(g); err == nil {
		t.Fatal("loadConfig served a command of no trust level")
	}
}
