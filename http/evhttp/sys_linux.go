//go:build linux && !386

package evhttp

import (
	"syscall"
	"unsafe"
)

// The wrappers below call the kernel directly with the caller's buffers: syscall.Read and friends
// would do the same, but these also return the raw Errno (no interface conversion) and cover the
// calls the syscall package lacks (accept4 into a reused address buffer, writev, eventfd).
//
// read, send and sendmsg use RawSyscall: the descriptors are nonblocking, so the calls never wait,
// and skipping the scheduler's entersyscall/exitsyscall saves about 100 ns per call. epoll_wait
// blocks: sysEpollWait is used only for waits of at most a millisecond (loop.wait), longer ones go
// through syscall.EpollWait (Syscall6), which lets the runtime hand the P to other goroutines
// meanwhile.

func sysRead(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// sysWrite is write(2) as send(2) with MSG_NOSIGNAL: a peer that went away yields EPIPE without a
// SIGPIPE, whatever the program's signal handling (os/signal.Notify, a C host).
func sysWrite(fd int, b []byte) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)),
		syscall.MSG_NOSIGNAL, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// sysWritev is writev(2) as sendmsg(2) with MSG_NOSIGNAL (see sysWrite).
func sysWritev(fd int, iov []syscall.Iovec) (int, syscall.Errno) {
	var msg syscall.Msghdr
	msg.Iov = &iov[0]
	setSize(&msg.Iovlen, len(iov))
	r, _, e := syscall.RawSyscall(syscall.SYS_SENDMSG, uintptr(fd), uintptr(unsafe.Pointer(&msg)), syscall.MSG_NOSIGNAL)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

// sysAccept accepts a connection as nonblocking and close-on-exec, storing the peer's address in sa.
func sysAccept(lfd int, sa *syscall.RawSockaddrAny) (int, syscall.Errno) {
	n := uint32(syscall.SizeofSockaddrAny)
	r, _, e := syscall.RawSyscall6(syscall.SYS_ACCEPT4, uintptr(lfd), uintptr(unsafe.Pointer(sa)), uintptr(unsafe.Pointer(&n)),
		syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), 0
}

// sysEpollWait is epoll_wait without the scheduler's knowledge: the calling goroutine keeps its P
// while it waits, so the timeout must stay short (see loop.wait). It is made as epoll_pwait with no
// signal mask, the same call, which every architecture has (arm64 has no epoll_wait).
func sysEpollWait(epfd int, events []syscall.EpollEvent, msec int) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), 0
}

func sysEventfd() (int, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_EVENTFD2, 0, syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if e != 0 {
		return -1, e
	}
	return int(r), nil
}

// eventfdAdd adds one to the eventfd's counter, waking an epoll_wait that watches it.
func eventfdAdd(fd int) {
	one := uint64(1)
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&one)), 8)
		if e != syscall.EINTR {
			return // EAGAIN means the counter is already nonzero: the loop will wake anyway
		}
	}
}

// eventfdDrain resets the eventfd's counter.
func eventfdDrain(fd int) {
	var v uint64
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&v)), 8)
		if e != syscall.EINTR {
			return
		}
	}
}

// epollCtl adds, modifies or removes fd's registration; the event's data is the descriptor itself.
// (syscall.EpollCtl would make the event escape to the heap: one allocation per call.)
func epollCtl(epfd, op, fd int, events uint32) syscall.Errno {
	ev := syscall.EpollEvent{Events: events, Fd: int32(fd)}
	_, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(&ev)), 0, 0)
	return e
}

// setSize stores n in a size_t field of a kernel structure, which is uint32 or uint64 by
// architecture (the syscall package has no setter for Msghdr.Iovlen).
func setSize[T uint32 | uint64](p *T, n int) { *p = T(n) }
