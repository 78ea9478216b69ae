//go:build !unix && !windows

package fsutil

import "errors"

func errnoProblem(error) WriteProblem { return "" }

func freeSpace(string) (uint64, error) {
	return 0, errors.New("free space is not known on this system")
}
