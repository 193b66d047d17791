package redis

import "crypto/x509"

// SetRootCAs has rediss:// trust pool instead of the system's roots.
func SetRootCAs(pool *x509.CertPool) { rootCAs = pool }
