package redirects

// KeyService is the service layer's keys (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type KeyService interface {
}
