package proc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/windows"
)

// Listening sockets come from the listener tables only
// (TCP_TABLE_OWNER_PID_LISTENER), never from the table of every
// connection gopsutil reads: on a host with thousands of connections that
// one costs seconds (12 s under Wine, which finds each row's owner by
// scanning processes), and a cycle waits for it.

// ErrOwnerUnknown: the listener table names no owning process for the
// socket (dwOwningPid 0: Wine 8 reports 0 for every socket).
var ErrOwnerUnknown = errors.New("GetExtendedTcpTable names no owning process (pid 0)")

var procGetExtendedTcpTable = windows.NewLazySystemDLL("iphlpapi.dll").NewProc("GetExtendedTcpTable")

const (
	tcpTableOwnerPIDListener = 3  // TCP_TABLE_OWNER_PID_LISTENER
	afInet6                  = 23 // AF_INET6
	tcpRowSize               = 24 // MIB_TCPROW_OWNER_PID: 6 DWORDs
	tcp6RowSize              = 56 // MIB_TCP6ROW_OWNER_PID
)

func listeners(context.Context) ([]listener, error) {
	v4, err := listenerTable(windows.AF_INET, tcpRowSize, 8, 20)
	if err != nil {
		return nil, err
	}
	v6, err := listenerTable(afInet6, tcp6RowSize, 20, 52)
	if err != nil {
		return nil, err
	}
	return append(v4, v6...), nil
}

func listenersOf(ctx context.Context, p *process.Process) ([]listener, error) {
	all, err := listeners(ctx)
	if err != nil {
		return nil, err
	}
	var out []listener
	for _, l := range all {
		if l.pid == p.Pid {
			out = append(out, l)
		}
	}
	return out, nil
}

// listenerTable reads one family's listener table: a DWORD count, then
// rows of rowSize bytes with the local port (network order, in a DWORD) at
// portOff and the owning pid at pidOff.
func listenerTable(af uint32, rowSize, portOff, pidOff int) ([]listener, error) {
	size := uint32(4096)
	for range 8 {
		buf := make([]byte, size)
		r, _, _ := procGetExtendedTcpTable.Call(uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&size)),
			0, uintptr(af), tcpTableOwnerPIDListener, 0)
		switch windows.Errno(r) {
		case windows.ERROR_INSUFFICIENT_BUFFER:
			continue // size now says how much is needed
		case 0:
		default:
			return nil, fmt.Errorf("GetExtendedTcpTable: %w", windows.Errno(r))
		}
		n := int(binary.LittleEndian.Uint32(buf))
		out := make([]listener, 0, n)
		for i := range n {
			row := buf[4+i*rowSize:]
			if len(row) < rowSize {
				break
			}
			port := binary.BigEndian.Uint16(row[portOff:])
			out = append(out, listener{pid: int32(binary.LittleEndian.Uint32(row[pidOff:])), port: uint32(port)})
		}
		return out, nil
	}
	return nil, errors.New("GetExtendedTcpTable: the table keeps growing")
}
