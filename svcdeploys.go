package redirects

// DeployService is the service layer's deploys (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type DeployService interface {
}
