//go:build !unix

package main

// keepRunningWhenReaderGoes: no SIGPIPE here; a write to a closed pipe is
// an error already.
func keepRunningWhenReaderGoes() {}
