package redirects

// OrgService is the service layer's orgs (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type OrgService interface {
}
