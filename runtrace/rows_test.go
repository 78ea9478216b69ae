package runtrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneRowLoop: scanRows is the package's one loop over query rows (each
// copy of it was a place to forget rows.Close or rows.Err); a read adds a
// scan function, not a loop.
func TestOneRowLoop(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	var loops []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for range strings.Count(string(b), ".Next()") {
			loops = append(loops, f)
		}
	}
	if len(loops) != 1 || loops[0] != "rows.go" {
		t.Errorf("loops over rows in %v, want only rows.go's scanRows", loops)
	}
}

// TestScanRowsReportsAQueryThatFails: a bad query is an error, not an
// empty list.
func TestScanRowsReportsAQueryThatFails(t *testing.T) {
	s := newStore(t)
	if out, err := scanRows(ctxb, s.r, scanValue[string], `SELECT no_such_column FROM run_trace`); err == nil {
		t.Fatalf("scanRows = %v, nil; want the query's error", out)
	}
	ids, err := scanRows(ctxb, s.r, scanValue[string], `SELECT 'a' UNION ALL SELECT 'b'`)
	if err != nil || strings.Join(ids, ",") != "a,b" {
		t.Fatalf("scanRows = %v, %v", ids, err)
	}
}
