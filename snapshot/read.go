package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"svcctl/internal/fsutil"
)

// Read returns the newest n entries of the file at path, newest first (all of
// them when n <= 0). A line that does not decode as an entry (a write cut short
// by a crash, a hand edit) is skipped, and the number skipped among the lines
// read is returned as corrupt, so a reader can say evidence is missing rather
// than hide it. A missing file holds no entries: nil, 0, nil.
func Read(path string, n int) (entries []Entry, corrupt int, err error) {
	data, err := readAll(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read snapshots %s: %w", path, err)
	}
	for len(data) > 0 && (n <= 0 || len(entries) < n) {
		var line []byte
		data, line = cutLastLine(data)
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, ok := decodeEntry(line)
		if !ok {
			corrupt++
			continue
		}
		entries = append(entries, e)
	}
	return entries, corrupt, nil
}

// cutLastLine splits data into what comes before its last line and that line.
func cutLastLine(data []byte) (rest, line []byte) {
	data = bytes.TrimSuffix(data, []byte("\n"))
	i := bytes.LastIndexByte(data, '\n')
	return data[:i+1], data[i+1:]
}

// decodeEntry accepts a line only if it is a JSON object with a time: "null"
// or a stray number would otherwise decode into an empty entry.
func decodeEntry(line []byte) (Entry, bool) {
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil || e.Time.IsZero() {
		return Entry{}, false
	}
	return e, true
}

// readAll reads the file at path without following a symbolic link.
func readAll(path string) ([]byte, error) {
	f, err := fsutil.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
