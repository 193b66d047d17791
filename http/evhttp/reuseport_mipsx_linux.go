//go:build linux && (mips || mipsle || mips64 || mips64le)

package evhttp

// soReusePort is SO_REUSEPORT, whose value differs on MIPS.
const soReusePort = 0x200
