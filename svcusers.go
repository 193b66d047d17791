package redirects

// UserService is the service layer's users (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type UserService interface {
}
