package config

import "errors"

// ErrInsecurePermissions marks a config file that non-administrators can
// change. Whoever writes the config chooses the commands the agent runs,
// so a privileged agent refuses it (errors.Is(err, ErrInsecurePermissions)).
var ErrInsecurePermissions = errors.New("config is writable by non-administrators")
