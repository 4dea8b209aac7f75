//go:build !unix

package owner

import (
	"errors"
	"io/fs"
)

// Token is empty where neither the start time of a process nor whether it
// runs can be read: what such a process leaves is never proved dead, so
// never removed.
func Token() string { return "" }

// Dead is never true here: nothing can be proved.
func Dead(int, string) bool { return false }

// StartTicks cannot be read here.
func StartTicks(int) (uint64, error) { return 0, errors.ErrUnsupported }

// OwnedByMe is never true here: nothing is removed.
func OwnedByMe(fs.FileInfo) bool { return false }
