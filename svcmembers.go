package redirects

// MemberService is the service layer's members (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type MemberService interface {
}
