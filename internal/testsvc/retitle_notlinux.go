//go:build !linux

package testsvc

import "errors"

func retitle() error { return errors.ErrUnsupported }
