package redirects

// ImportService is the service layer's imports (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type ImportService interface {
}
