package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Load reads, parses and validates the config file at path. Relative paths
// inside it are resolved against the file's directory. A problem with the
// contents comes back as one or more *Error (see Errors); a file that cannot
// be read comes back wrapping the os error (errors.Is(err, fs.ErrNotExist)).
func Load(path string) (*Config, error) {
	return load(path, false)
}

// LoadToRead is Load for the commands that only read what the agent left
// (status, runs, why, missing, snapshot, verify, schedule, config check): an
// env_file this process may not read is not an error but is listed in
// Config.UnreadEnvFiles, its variables missing. The recommended env_file is
// 0600 and the agent's; a person who may read the config should still get
// "permission denied" answers from the state they cannot read, not a config
// that is invalid for everyone but root. Never for anything that runs what
// the config names: that is LoadToRun.
func LoadToRead(path string) (*Config, error) {
	return load(path, true)
}

func load(path string, deniedEnvFileOK bool) (*Config, error) {
	fi, statErr := os.Stat(path)
	data, err := os.ReadFile(path)
	if err != nil {
		// The os error names the path and the cause; callers know where the
		// path came from (--config, $SVC_CTL_CONFIG, default) and say so.
		return nil, fmt.Errorf("read config: %w", err)
	}
	cfg, err := parse(data, path, deniedEnvFileOK)
	if err != nil {
		return nil, err
	}
	cfg.Digest = Digest(data)
	if statErr == nil {
		cfg.ModTime = fi.ModTime().UTC()
	}
	setDigest(cfg)
	return cfg, nil
}

// Digest is the SHA-256 of a config file's bytes, in hex: what tells the
// file the agent loaded from the file on disk now.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Parse parses and validates config bytes. file is the name used in
// messages and, when not empty, the file whose directory relative paths are
// resolved against (and Config.Path); with file == "" they are resolved
// against the working directory and Config.Path stays "".
//
// Every problem is reported at once: a syntax error alone (nothing after it
// can be trusted), else every unknown key and wrong type, and, when the
// types are right, every failed validation rule, sorted by line.
func Parse(data []byte, file string) (*Config, error) {
	return parse(data, file, false)
}

func parse(data []byte, file string, deniedEnvFileOK bool) (*Config, error) {
	display := file
	if display == "" {
		display = "config"
	}
	doc, syntaxErr := scan(data, display)
	if syntaxErr != nil {
		return nil, errorList{syntaxErr}.err()
	}
	if doc.undecodable {
		return nil, doc.finish()
	}
	var raw rawFile
	if !decode(data, &raw, doc) {
		return nil, doc.finish()
	}
	abs, base, err := locate(file)
	if err != nil {
		return nil, err
	}
	c := &checker{doc: doc, base: base, user: userMode(), deniedEnvFileOK: deniedEnvFileOK, ext: extTables(data)}
	cfg := &Config{Path: abs, Agent: c.agent(&raw.Agent)}
	cfg.Services = c.services(raw.Service, cfg.Agent.StateDir)
	cfg.Jobs = c.jobs(raw.Job)
	cfg.Notify = c.notifies(raw.Notify)
	cfg.Includes = c.includes(raw.Include)
	if err := doc.finish(); err != nil {
		return nil, err
	}
	cfg.Files = []SourceFile{{Path: abs, Digest: Digest(data)}}
	if err := readIncludes(cfg, doc, c); err != nil {
		return nil, err
	}
	cfg.UnreadEnvFiles = c.unread
	return cfg, nil
}

// userMode is UserMode, a variable so that tests can load a config as the
// system agent and as a per-user agent on any host.
var userMode = UserMode

// decode fills raw with go-toml in strict mode. The walk has already
// reported unknown keys and wrong types; go-toml is the second line that
// also catches what only a decoder sees (a key defined twice, an integer
// too large). It reports whether the decoded values can be validated.
func decode(data []byte, raw *rawFile, doc *document) bool {
	err := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields().Decode(raw)
	var strict *toml.StrictMissingError
	var derr *toml.DecodeError
	switch {
	case err == nil:
		return true
	case errors.As(err, &strict):
		for i := range strict.Errors {
			if !isExtKey(strict.Errors[i].Key()) {
				doc.addDecodeError(&strict.Errors[i], "unknown key")
			}
		}
		return true // strict mode still decoded everything it knew
	case errors.As(err, &derr):
		doc.addDecodeError(derr, "")
		return false
	default:
		doc.fail("", 0, "invalid TOML: %v", err)
		return false
	}
}

// addDecodeError records a go-toml error unless the walk already reported
// a problem on that line.
func (d *document) addDecodeError(e *toml.DecodeError, msg string) {
	line, _ := e.Position()
	if d.errs.hasLine(line) {
		return
	}
	if msg == "" {
		msg = strings.TrimPrefix(e.Error(), "toml: ")
	}
	d.fail(d.pathAt(line, strings.Join(e.Key(), ".")), line, "%s", msg)
}

// pathAt maps go-toml's key (no list indexes: service.restart.x) to the
// walk's path written on that line (service[1].restart.x), so the message
// can name the service.
func (d *document) pathAt(line int, key string) string {
	for path, l := range d.lines {
		if l == line && headerName(path) == key {
			return path
		}
	}
	return key
}

// locate returns the absolute path of file ("" for none) and the directory
// relative paths are resolved against.
func locate(file string) (abs, base string, err error) {
	if file == "" {
		base, err = os.Getwd()
		if err != nil {
			return "", "", fmt.Errorf("resolve relative paths: %w", err)
		}
		return "", base, nil
	}
	abs, err = filepath.Abs(file)
	if err != nil {
		return "", "", fmt.Errorf("resolve config path %s: %w", file, err)
	}
	return abs, filepath.Dir(abs), nil
}
