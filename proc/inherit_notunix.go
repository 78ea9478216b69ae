//go:build !unix

package proc

// CloseInheritedOnExec does nothing where descriptors are not inherited
// implicitly: Windows passes a child only the handles it is given.
func CloseInheritedOnExec() {}
