package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentDirectOnlyForItsOwnCommandLine: `svc-ctl agent` runs without the
// command tree, but only for a command line the tree would parse the same
// way; a typo, --help or an argument goes to the tree and gets its answer.
func TestAgentDirectOnlyForItsOwnCommandLine(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.toml")
	for _, args := range [][]string{
		nil, {"status"}, {"--config", missing, "agent"}, {"agent", "--help"}, {"agent", "-h"},
		{"agent", "--bogus"}, {"agent", "extra"}, {"agent", "--max-stagger", "soon"}, {"agent", "--version"},
	} {
		var out, errb bytes.Buffer
		g := &globals{stdout: &out, stderr: &errb}
		if _, ok := runAgentDirect(g, args); ok {
			t.Errorf("%q: ran the agent directly, want the command tree", args)
		}
		if g.configPath != "" || g.trust != "" {
			t.Errorf("%q: left globals set (config %q, trust %q)", args, g.configPath, g.trust)
		}
	}
	// Its own command line: the agent runs (here it stops at once on the
	// missing config, as the tree's agent would).
	var out, errb bytes.Buffer
	g := &globals{stdout: &out, stderr: &errb}
	code, ok := runAgentDirect(g, []string{"agent", "--config=" + missing, "--verify-after", "0", "--max-stagger", "1s"})
	if !ok || code == 0 || g.trust != trustRun || g.configPath != missing {
		t.Fatalf("ok %v, code %d, trust %q, config %q; want the agent run directly, refused (no config file), trust run", ok, code, g.trust, g.configPath)
	}
	// the same answer as through the tree
	var treeErr bytes.Buffer
	treeCode := exitCode(func() error {
		g2 := &globals{stdout: &bytes.Buffer{}, stderr: &treeErr}
		root := newRootCommand(g2)
		root.SetArgs([]string{"agent", "--config=" + missing, "--verify-after", "0"})
		_, err := root.ExecuteC()
		return err
	}(), &treeErr, "svc-ctl agent")
	if treeCode != code || !strings.Contains(errb.String(), missing) || errb.String() != treeErr.String() {
		t.Fatalf("direct: %d %q; through the tree: %d %q; want the same", code, errb.String(), treeCode, treeErr.String())
	}
}
