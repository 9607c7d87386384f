package wire

// ServiceName is what Core's /healthz says it is ("service"), so a client
// can tell Pedelec Core from whatever else answers on its port (a page's
// SDK behind a port forward, docs/remote.md).
const ServiceName = "pedelec"
