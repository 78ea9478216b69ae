package svcctl_test

import (
	"bufio"
	"go/build/constraint"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The operating systems Go knows (go tool dist list), and those its "unix"
// build tag covers.
var (
	allOS  = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js", "linux", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos"}
	unixOS = []string{"aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "linux", "netbsd", "openbsd", "solaris"}
)

// osWords are the words a file name may end in to say which systems it is
// built for, besides the name of each OS itself. A word may be prefixed
// with "not", and words may be joined with "or"; the words of one name
// (separated by "_") all hold:
//
//	exec_linux.go                   linux (Go itself reads this one)
//	exec_unix.go                    unix
//	exec_unix_notlinux.go           unix && !linux
//	paths_notlinux_notdarwin_notwindows.go  !linux && !darwin && !windows
//	spawn_linuxordarwin_test.go     linux || darwin
//	watch_kqueue.go                 darwin || dragonfly || freebsd || netbsd || openbsd
var osWords = map[string][]string{
	"unix":   unixOS,
	"kqueue": {"darwin", "dragonfly", "freebsd", "netbsd", "openbsd", "ios"}, // the systems with kqueue(2)
}

// TestFileNamesSayTheirOS: every Go file's name says which systems it is
// built for, and its //go:build line agrees, on every OS Go knows. A file
// named _other, or _bsd when it means "unix but not Linux" (darwin
// included), says nothing a reader can check; a build line the name does
// not repeat hides a file from the person looking for the macOS code.
func TestFileNamesSayTheirOS(t *testing.T) {
	n := 0
	filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		n++
		byName, words := nameConstraint(filepath.Base(path))
		line, err := buildLine(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		var differ []string
		for _, goos := range allOS {
			if byName(goos) != (goImplicit(filepath.Base(path), goos) && evalLine(line, goos)) {
				differ = append(differ, goos)
			}
		}
		if len(differ) > 0 {
			say := "no OS"
			if len(words) > 0 {
				say = strings.Join(words, " and ")
			}
			lineSays := "no //go:build line"
			if line != nil {
				lineSays = "//go:build " + line.String()
			}
			t.Errorf("%s: its name says %s but it has %s: they disagree for %s; "+
				"rename it so that its last words say the constraint (buildnames_test.go, osWords) or fix the build line",
				path, say, lineSays, strings.Join(differ, ", "))
		}
		return nil
	})
	if n < 100 {
		t.Fatalf("only %d Go files found: run from the module root", n)
	}
}

// nameConstraint reads the trailing OS words of a file name (_test and .go
// stripped): which systems the name says the file is for, and the words.
func nameConstraint(base string) (func(goos string) bool, []string) {
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".go"), "_test")
	parts := strings.Split(stem, "_")
	var terms [][]string // each: alternatives ("not" kept as a prefix)
	var words []string
	for i := len(parts) - 1; i > 0; i-- { // parts[0] is the file's own name
		alts := strings.Split(parts[i], "or")
		if !allOSWords(alts) {
			break
		}
		terms = append(terms, alts)
		words = append([]string{parts[i]}, words...)
	}
	return func(goos string) bool {
		for _, alts := range terms {
			if !slices.ContainsFunc(alts, func(a string) bool { return wordHolds(a, goos) }) {
				return false
			}
		}
		return true
	}, words
}

func allOSWords(alts []string) bool {
	for _, a := range alts {
		w := strings.TrimPrefix(a, "not")
		if _, ok := osWords[w]; !ok && !slices.Contains(allOS, w) {
			return false
		}
	}
	return true
}

func wordHolds(a, goos string) bool {
	w, neg := strings.CutPrefix(a, "not")
	var holds bool
	if set, ok := osWords[w]; ok {
		holds = slices.Contains(set, goos)
	} else {
		holds = osTag(w, goos)
	}
	return holds != neg
}

// osTag says whether the build tag tag is set when building for goos, as
// go/build sets them: android is also linux, ios also darwin, illumos
// also solaris.
func osTag(tag, goos string) bool {
	switch {
	case tag == goos:
		return true
	case tag == "unix":
		return slices.Contains(unixOS, goos)
	case tag == "linux" && goos == "android", tag == "darwin" && goos == "ios", tag == "solaris" && goos == "illumos":
		return true
	}
	return false
}

// goImplicit is the constraint Go reads from a file name itself: a last
// word (before _test, or before an architecture) that names an OS.
func goImplicit(base, goos string) bool {
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".go"), "_test")
	parts := strings.Split(stem, "_")
	for i := len(parts) - 1; i >= 1 && i >= len(parts)-2; i-- {
		if slices.Contains(allOS, parts[i]) {
			return osTag(parts[i], goos)
		}
	}
	return true
}

// evalLine evaluates a build line for goos; tags that name no OS (an
// architecture, cgo, race) count as set: this test is about the OS.
func evalLine(line constraint.Expr, goos string) bool {
	if line == nil {
		return true
	}
	return line.Eval(func(tag string) bool {
		if tag == "unix" || slices.Contains(allOS, tag) {
			return osTag(tag, goos)
		}
		return true
	})
}

// buildLine is the file's //go:build expression, nil when it has none.
func buildLine(path string) (constraint.Expr, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "package ") {
			return nil, nil
		}
		if constraint.IsGoBuild(l) {
			return constraint.Parse(l)
		}
	}
	return nil, sc.Err()
}

// TestNameConstraint checks the reading of names itself, so that the test
// above cannot pass by reading every name as "any OS".
func TestNameConstraint(t *testing.T) {
	for _, tc := range []struct {
		name string
		for_ []string // the systems it is for, of linux, darwin, freebsd, windows, plan9
	}{
		{"exec.go", []string{"linux", "darwin", "freebsd", "windows", "plan9"}},
		{"exec_linux.go", []string{"linux"}},
		{"exec_unix_test.go", []string{"linux", "darwin", "freebsd"}},
		{"exec_unix_notlinux.go", []string{"darwin", "freebsd"}},
		{"exec_notunix_notwindows.go", []string{"plan9"}},
		{"spawn_linuxordarwin_test.go", []string{"linux", "darwin"}},
		{"watch_kqueue.go", []string{"darwin", "freebsd"}},
		{"watch_notlinux_notwindows_notkqueue.go", []string{"plan9"}},
		{"monitor_other.go", []string{"linux", "darwin", "freebsd", "windows", "plan9"}},
	} {
		holds, _ := nameConstraint(tc.name)
		var got []string
		for _, goos := range []string{"linux", "darwin", "freebsd", "windows", "plan9"} {
			if holds(goos) {
				got = append(got, goos)
			}
		}
		if !slices.Equal(got, tc.for_) {
			t.Errorf("%s reads as for %v, want %v", tc.name, got, tc.for_)
		}
	}
}
