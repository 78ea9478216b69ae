//go:build !windows

package install

import "os"

func gatherFacts() facts { return facts{getenv: os.Getenv} }
