package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// isInitScript: platforms whose definition is an /etc/init.d script.
func isInitScript(platform string) bool {
	return platform == "unix-systemv" || platform == "linux-openrc" || platform == "linux-rcs" || platform == "linux-procd"
}

// initLeftovers are the paths, under root, that kardianos' SysV install
// creates beside the script (rc links) and that our script creates (pid file).
func initLeftovers(root string) (links []string, pidFile string) {
	for _, lvl := range []string{"0", "1", "2", "3", "4", "5", "6"} {
		for _, prefix := range []string{"S50", "K02"} {
			links = append(links, filepath.Join(root, "etc", "rc"+lvl+".d", prefix+ServiceName))
		}
	}
	return links, filepath.Join(root, filepath.FromSlash(sysvPidFile))
}

// removeInitLeftovers removes the rc links that point at our script (and no
// other file of the same name) and the pid file.
func removeInitLeftovers(root string) error {
	links, pidFile := initLeftovers(root)
	script := "/etc/init.d/" + ServiceName
	var errs []error
	for _, l := range links {
		target, err := os.Readlink(l)
		if err != nil || target != script {
			continue
		}
		if err := os.Remove(l); err != nil {
			errs = append(errs, fmt.Errorf("remove rc link: %w", err))
		}
	}
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, fmt.Errorf("remove pid file: %w", err))
	}
	return errors.Join(errs...)
}
