package redirects

// RuleService is the service layer's rules (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type RuleService interface {
}
