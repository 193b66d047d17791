package redirects

// ProjectService is the service layer's projects (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type ProjectService interface {
}
