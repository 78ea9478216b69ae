package proc

import (
	"bytes"
	"encoding/binary"
)

// envArea finds the environment in a macOS KERN_PROCARGS2 buffer:
//
//	argc (int32, host order: little endian on every Mac) | exec_path \0 [\0 padding...]
//	argv[0] \0 ... argv[argc-1] \0 | envp[0] \0 ... [\0 padding] [apple strings...]
//
// It returns everything after argv: the environment and the strings the
// kernel appends after it. A marker is looked for as one whole
// NUL-separated entry, so the extra strings cannot make one up. Plain Go so
// that its seam test runs on every OS.
func envArea(b []byte) ([]byte, bool) {
	if len(b) < 4 {
		return nil, false
	}
	argc := int(binary.LittleEndian.Uint32(b[:4]))
	rest := b[4:]
	i := bytes.IndexByte(rest, 0) // end of exec_path
	if i < 0 {
		return nil, false
	}
	rest = rest[i:]
	for len(rest) > 0 && rest[0] == 0 { // padding
		rest = rest[1:]
	}
	for range argc {
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return nil, false
		}
		rest = rest[i+1:]
	}
	return rest, true
}

// hasEntry reports whether the NUL-separated area holds entry as one whole
// string.
func hasEntry(area []byte, entry string) bool {
	for len(area) > 0 {
		i := bytes.IndexByte(area, 0)
		if i < 0 {
			return string(area) == entry
		}
		if string(area[:i]) == entry {
			return true
		}
		area = area[i+1:]
	}
	return false
}
