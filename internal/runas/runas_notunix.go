//go:build !unix

package runas

const supported = false

// Lookup is not available here: services run as the agent's account.
func Lookup(userName, groupName string) (*Identity, error) { return nil, ErrUnsupported }
