package redirects

// InsightService is the service layer's insight (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type InsightService interface {
}
