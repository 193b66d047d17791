package redirects

// SessionService is the service layer's sessions (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type SessionService interface {
}
