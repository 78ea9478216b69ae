package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Config at fleet scale: the main file's top-level `include = [...]` adds
// the [[service]], [[job]] and [[notify]] tables of other files, so a fleet
// tool can drop one file per service into conf.d/. The rules:
//
//   - each pattern is a glob relative to the main file's directory, with a
//     wildcard in the file name only (conf.d/*.toml): the directories that
//     can add a file are named, and the trust rule covers each of them;
//   - files are read pattern by pattern, each pattern's matches in lexical
//     order; a file matched twice is read once;
//   - an included file holds [[service]], [[job]] and [[notify]] only: no
//     [agent], no include (no nesting);
//   - a name defined in two files is an error that names both;
//   - relative paths resolve against the file that holds them;
//   - a pattern may match nothing (config check says so); a reload that
//     finds none where the loaded config had some is refused unless asked
//     (a half-finished deploy must not read as removals: agent/reload.go);
//   - the config's Digest covers every file of the set.

// SourceFile is one file a config was read from.
type SourceFile struct {
	Path   string // absolute
	Digest string // SHA-256 of its bytes, hex
}

// IncludeMatch is one include pattern and the files it matched.
type IncludeMatch struct {
	Pattern string   // as written
	Files   []string // absolute, in the order read
}

// Source is the file that defines the service, job or notify channel
// (kind "service", "job", "notify") named name: the main file unless an
// included file does.
func (c *Config) Source(kind, name string) string {
	if f, ok := c.sources[kind+":"+name]; ok {
		return f
	}
	return c.Path
}

// notInIncluded are the top-level keys only the main file may hold.
var notInIncluded = []string{"agent", "include"}

// includes resolves the main file's patterns (against base) to files.
func (c *checker) includes(patterns []string) []IncludeMatch {
	out := make([]IncludeMatch, 0, len(patterns))
	read := map[string]bool{}
	for i, p := range patterns {
		key := indexKey("include", i)
		if p == "" {
			c.fail(key, `empty pattern: write a glob like "conf.d/*.toml"`)
			continue
		}
		abs := c.path(key, p)
		if dir := filepath.Dir(abs); hasMeta(dir) {
			c.fail(key, "%q: a wildcard only in the file name, like conf.d/*.toml (each directory that can add a file is named, and checked)", p)
			continue
		}
		files, err := filepath.Glob(abs)
		if err != nil {
			c.fail(key, "invalid pattern %q: %v", p, err)
			continue
		}
		m := IncludeMatch{Pattern: p}
		for _, f := range files { // Glob sorts them
			if fi, err := os.Stat(f); err != nil || !fi.Mode().IsRegular() || read[f] {
				continue
			}
			read[f] = true
			m.Files = append(m.Files, f)
		}
		out = append(out, m)
	}
	return out
}

func hasMeta(path string) bool { return strings.ContainsAny(path, `*?[`) }

// IncludeDirs are the directories the include patterns glob in: whoever
// can add a file there adds services to the agent.
func (c *Config) IncludeDirs() []string {
	var out []string
	base := filepath.Dir(c.Path)
	for _, m := range c.Includes {
		d := filepath.Dir(m.Pattern)
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// IncludedFiles are the files include added, in the order read.
func (c *Config) IncludedFiles() []string {
	var out []string
	for _, m := range c.Includes {
		out = append(out, m.Files...)
	}
	return out
}

// included is what one included file adds.
type included struct {
	file     string
	doc      *document
	services []Service
	jobs     []Job
	notify   []Notify
}

// parseIncluded parses and validates one included file: its tables only,
// with relative paths against its own directory.
func parseIncluded(data []byte, file string, main *checker, stateDir string) (*included, error) {
	doc, syntaxErr := scan(data, file)
	if syntaxErr != nil {
		return nil, errorList{syntaxErr}.err()
	}
	for _, k := range notInIncluded {
		if doc.has(k) {
			what := "[agent]"
			if k == "include" {
				what = "include (no nesting)"
			}
			doc.fail(k, doc.line(k), "%s belongs in the main file only: an included file holds [[service]], [[job]] and [[notify]] tables", what)
		}
	}
	if doc.undecodable {
		return nil, doc.finish()
	}
	var raw rawFile
	if !decode(data, &raw, doc) {
		return nil, doc.finish()
	}
	c := &checker{doc: doc, base: filepath.Dir(file), user: main.user, deniedEnvFileOK: main.deniedEnvFileOK, ext: extTables(data)}
	inc := &included{file: file, doc: doc, services: c.services(raw.Service, stateDir), jobs: c.jobs(raw.Job), notify: c.notifies(raw.Notify)}
	main.unread = append(main.unread, c.unread...)
	return inc, doc.finish()
}

// merge adds the included files' tables to cfg, refusing a name that two
// files define (in the later file, naming the first), and records where
// each table came from.
func merge(cfg *Config, mainDoc *document, incs []*included) error {
	cfg.sources = map[string]string{}
	type where struct {
		file string
		line int
	}
	seen := map[string]where{}
	note := func(kind, name, file string, line int) {
		seen[kind+":"+name] = where{file, line}
		cfg.sources[kind+":"+name] = file
	}
	for i, s := range cfg.Services {
		note("service", s.Name, cfg.Path, mainDoc.line(indexKey("service", i)+".name"))
	}
	for i, j := range cfg.Jobs {
		note("job", j.Name, cfg.Path, mainDoc.line(indexKey("job", i)+".name"))
	}
	for i, n := range cfg.Notify {
		note("notify", n.Name, cfg.Path, mainDoc.line(indexKey("notify", i)+".name"))
	}
	var errs errorList
	check := func(inc *included, kind, name string, i int) bool {
		key := indexKey(kind, i) + ".name"
		line := inc.doc.line(key)
		if first, dup := seen[kind+":"+name]; dup {
			errs.add(errorf(inc.file, line, inc.doc.display(key), "duplicate name %q: already defined in %s:%d; give each %s its own name",
				name, first.file, first.line, kind))
			return false
		}
		note(kind, name, inc.file, line)
		return true
	}
	for _, inc := range incs {
		for i, s := range inc.services {
			if check(inc, "service", s.Name, i) {
				cfg.Services = append(cfg.Services, s)
			}
		}
		for i, j := range inc.jobs {
			if check(inc, "job", j.Name, i) {
				cfg.Jobs = append(cfg.Jobs, j)
			}
		}
		for i, n := range inc.notify {
			if check(inc, "notify", n.Name, i) {
				cfg.Notify = append(cfg.Notify, n)
			}
		}
	}
	return errs.err()
}

// readIncludes reads, parses and merges every included file into cfg; the
// problems of every file come back at once, each naming its own file.
func readIncludes(cfg *Config, mainDoc *document, c *checker) error {
	var incs []*included
	var errs []error
	for _, f := range cfg.IncludedFiles() {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, errorList{&Error{File: f, Msg: fmt.Sprintf("cannot read this included file: %v", unwrapPath(err))}}.err())
			continue
		}
		inc, err := parseIncluded(data, f, c, cfg.Agent.StateDir)
		errs = append(errs, err)
		if inc != nil {
			incs = append(incs, inc)
			cfg.Files = append(cfg.Files, SourceFile{Path: f, Digest: Digest(data)})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return merge(cfg, mainDoc, incs)
}

// setDigest makes Digest cover the whole set: the main file's digest when
// nothing is included (as before include existed), else the digest of
// every file's path and digest in the order read; ModTime is the newest.
func setDigest(cfg *Config) {
	if len(cfg.Files) <= 1 {
		return
	}
	h := sha256.New()
	for _, f := range cfg.Files {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, f.Digest)
		if fi, err := os.Stat(f.Path); err == nil && fi.ModTime().After(cfg.ModTime) {
			cfg.ModTime = fi.ModTime().UTC()
		}
	}
	cfg.Digest = hex.EncodeToString(h.Sum(nil))
}

// MissingIncludes are the patterns that matched files in was and match
// none in c: a reload that would drop every service of a directory at once.
func (c *Config) MissingIncludes(was *Config) []IncludeMatch {
	var out []IncludeMatch
	for _, old := range was.Includes {
		if len(old.Files) == 0 {
			continue
		}
		for _, m := range c.Includes {
			if m.Pattern == old.Pattern && len(m.Files) == 0 {
				out = append(out, old)
			}
		}
	}
	return out
}
