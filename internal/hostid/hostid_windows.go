package hostid

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// machineID is MachineGuid (HKLM\SOFTWARE\Microsoft\Cryptography), made by
// Windows setup, read from the 64-bit view whatever this binary's width.
func machineID() (string, error) {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `SOFTWARE\Microsoft\Cryptography`, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return "", err
	}
	defer k.Close()
	v, _, err := k.GetStringValue("MachineGuid")
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", errors.New("MachineGuid is empty")
	}
	return v, nil
}
