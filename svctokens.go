package redirects

// TokenService is the service layer's tokens (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type TokenService interface {
}
