//go:build !linux

package main

import (
	"errors"
	"io"
)

// The drill guest is a Linux systemd machine; these stubs only let every GOOS
// compile the module.

var errNotLinux = errors.New("the drill guest runs on linux only")

func openSerial(string) (io.Writer, error) { return nil, errNotLinux }
func bootTime() (int64, error)             { return 0, errNotLinux }
func bootID() (string, error)              { return "", errNotLinux }
func kernelRelease() string                { return "" }
func killProcess(int) error                { return errNotLinux }

func (d *drill) power(action string) { d.emit(markerFor(action)) }
