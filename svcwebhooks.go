package redirects

// WebhookService is the service layer's webhooks (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type WebhookService interface {
}
