package fsutil

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "runtime.log")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTailLines(t *testing.T) {
	var many strings.Builder
	for i := range 100 {
		many.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	tests := []struct {
		name     string
		content  string
		n        int
		maxBytes int64
		want     []string
	}{
		{"trailing newline", "a\nb\nc\n", 10, 1024, []string{"a", "b", "c"}},
		{"no trailing newline", "a\nb\nc", 10, 1024, []string{"a", "b", "c"}},
		{"more than n lines", many.String(), 3, 1 << 20, []string{"line 97", "line 98", "line 99"}},
		{"crlf", "a\r\nb\r\n", 10, 1024, []string{"a", "b"}},
		{"blank lines kept", "a\n\nb\n", 10, 1024, []string{"a", "", "b"}},
		{"empty file", "", 10, 1024, nil},
		{"window cuts a line", "first\nsecond\nthird\n", 10, 9, []string{"nd", "third"}},
		{"n zero", "a\n", 0, 1024, nil},
		{"maxBytes zero", "a\n", 5, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := TailLines(writeTemp(t, tt.content), tt.n, tt.maxBytes)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("TailLines = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTailLinesHugeSingleLineIsCapped(t *testing.T) {
	huge := strings.Repeat("x", 1<<20) + "END"
	got, err := TailLines(writeTemp(t, huge), 50, 4096)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d lines, want 1", len(got))
	}
	if len(got[0]) != 4096 || !strings.HasSuffix(got[0], "END") {
		t.Fatalf("line has %d bytes ending %q, want the last 4096 bytes ending in END", len(got[0]), got[0][len(got[0])-3:])
	}
}

func TestTailLinesMissingFile(t *testing.T) {
	got, err := TailLines(filepath.Join(t.TempDir(), "nope.log"), 50, 1024)
	if err != nil || got != nil {
		t.Fatalf("TailLines(missing) = %q, %v; want nil, nil", got, err)
	}
}

func TestTailLinesUnreadableIsAnError(t *testing.T) {
	// A directory exists but cannot be read as a log: an error, not a silent nil.
	if _, err := TailLines(t.TempDir(), 50, 1024); err == nil {
		t.Fatal("TailLines on a directory succeeded, want an error")
	}
}

func FuzzTailLines(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), 2, int64(1024))
	f.Add([]byte("no newline at all"), 5, int64(4))
	f.Add([]byte("\n\n\n\r\n"), 1, int64(3))
	f.Add([]byte(""), 0, int64(0))
	f.Add([]byte("x\ny"), -3, int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, n int, maxBytes int64) {
		path := writeTemp(t, string(data))
		got, err := TailLines(path, n, maxBytes)
		if err != nil {
			t.Fatalf("TailLines: %v", err)
		}
		if len(got) > max(n, 0) {
			t.Fatalf("got %d lines, n = %d", len(got), n)
		}
		total := 0
		for _, l := range got {
			if strings.Contains(l, "\n") {
				t.Fatalf("line %q holds a newline", l)
			}
			total += len(l)
		}
		if int64(total) > max(maxBytes, 0) {
			t.Fatalf("returned %d bytes of lines, maxBytes = %d", total, maxBytes)
		}
	})
}
