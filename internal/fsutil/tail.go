package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// TailLines returns the last n lines of the file at path, oldest first,
// reading at most maxBytes from its end. The bound matters because the file is
// usually a log a misbehaving service may have grown without limit.
//
// Lines lose their "\n" (and a "\r" before it). A last line without a final
// newline is returned: it is the service's last, unfinished words. When the
// file is longer than maxBytes, the first line in the window may be the tail
// of a longer line; it is kept, so a single huge line still shows its end
// (capped at maxBytes). A missing file gives nil, nil; n <= 0 or maxBytes <= 0
// gives nil.
func TailLines(path string, n int, maxBytes int64) ([]string, error) {
	if n <= 0 || maxBytes <= 0 {
		return nil, nil
	}
	f, err := Open(path) // a link planted as the log must not show another file's tail
	buf, err := readTail(f, err, path, maxBytes)
	if err != nil {
		return nil, err
	}
	return lastLines(buf, n), nil
}

// TailLinesIn is TailLines of the file name in the pinned directory d,
// opened and checked as d.Open does (owners): the tail of a service's log
// outside the state dir, which no link or hard link can turn into another
// file's tail.
func TailLinesIn(d *Dir, name string, n int, maxBytes int64, owners Owners) ([]string, error) {
	if n <= 0 || maxBytes <= 0 {
		return nil, nil
	}
	f, err := d.Open(name, owners)
	buf, err := readTail(f, err, d.Join(name), maxBytes)
	if err != nil {
		return nil, err
	}
	return lastLines(buf, n), nil
}

// readTail reads up to maxBytes from the end of f, just opened (openErr).
// The file may grow or shrink while it is read (a live service writes it):
// the section reader stops at the size seen at open, or earlier at EOF.
func readTail(f *os.File, openErr error, path string, maxBytes int64) ([]byte, error) {
	if errors.Is(openErr, fs.ErrNotExist) {
		return nil, nil
	}
	if openErr != nil {
		return nil, fmt.Errorf("open %s: %w", path, openErr)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", path, err)
	}
	start := max(fi.Size()-maxBytes, 0)
	buf, err := io.ReadAll(io.NewSectionReader(f, start, fi.Size()-start))
	if err != nil {
		return nil, fmt.Errorf("read the end of %s: %w", path, err)
	}
	return buf, nil
}

// lastLines splits buf into lines and keeps the last n.
func lastLines(buf []byte, n int) []string {
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	if len(buf) == 0 {
		return nil
	}
	var rev []string
	for len(rev) < n {
		i := bytes.LastIndexByte(buf, '\n')
		rev = append(rev, string(bytes.TrimSuffix(buf[i+1:], []byte("\r"))))
		if i < 0 {
			break
		}
		buf = buf[:i]
	}
	out := make([]string, len(rev))
	for i, l := range rev {
		out[len(rev)-1-i] = l
	}
	return out
}
