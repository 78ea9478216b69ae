package child

import (
	"fmt"
	"os"
	"testing"
	"time"
)

const helperEnv = "CHILD_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "exit3":
		os.Exit(3)
	case "talk":
		fmt.Print("to stdout\n")
		fmt.Fprint(os.Stderr, "to stderr\n")
		os.Exit(4)
	case "orphan":
		os.Exit(startOrphan())
	case "late":
		time.Sleep(30 * time.Millisecond)
		os.Exit(5)
	}
	os.Exit(2)
}

func helper(mode string) *Cmd {
	c := Command(os.Args[0])
	c.Env = append(os.Environ(), helperEnv+"="+mode)
	return c
}
