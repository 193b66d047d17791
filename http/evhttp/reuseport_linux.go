//go:build linux && !(mips || mipsle || mips64 || mips64le)

package evhttp

// soReusePort is SO_REUSEPORT, which the syscall package does not define (golang.org/x/sys/unix
// does, but is not a direct dependency of this module).
const soReusePort = 0xf
