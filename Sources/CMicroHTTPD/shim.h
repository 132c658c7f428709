#ifndef SECTIONCTL_CMICROHTTPD_SHIM_H
#define SECTIONCTL_CMICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Called with the request's URI as sent, before MHD decodes it; returns the request's context.
typedef void *(*chttpd_uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// What a daemon is started with. MHD_start_daemon is variadic, which Swift cannot call.
struct chttpd_settings {
    /// A socket already bound and listening; the daemon takes it over.
    int listen_socket;
    /// Polling threads, each running the handlers of its connections; 1 for no pool.
    unsigned int threads;
    /// MHD's hard limit on open connections.
    unsigned int connection_limit;
    /// Seconds of silence after which a connection is closed.
    unsigned int connection_timeout;
    /// Bytes of memory per connection: the request line and headers must fit.
    size_t connection_memory_limit;
    /// PEM text of the certificate and key, or NULL for plain HTTP.
    const char *tls_certificate;
    const char *tls_key;
    MHD_AccessHandlerCallback handler;
    MHD_RequestCompletedCallback completed;
    MHD_NotifyConnectionCallback connection;
    chttpd_uri_callback uri;
    /// Passed to every callback.
    void *context;
};

/// Starts a daemon with an internal polling thread (epoll where there is one), a thread pool,
/// suspend and resume allowed, and MHD's own error log off; NULL when MHD refuses.
static inline struct MHD_Daemon *chttpd_start(const struct chttpd_settings *s) {
    unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME;
    struct MHD_OptionItem options[16];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, (intptr_t)s->listen_socket, NULL};
    if (s->threads > 1) {
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE, (intptr_t)s->threads, NULL};
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t)s->connection_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)s->connection_timeout, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)s->connection_memory_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)s->completed, s->context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)s->connection, s->context};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)s->uri, s->context};
    if (s->tls_certificate != NULL && s->tls_key != NULL) {
        flags |= MHD_USE_TLS;
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, (intptr_t)0, (void *)s->tls_certificate};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, (intptr_t)0, (void *)s->tls_key};
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, 0, NULL, NULL, s->handler, s->context, MHD_OPTION_ARRAY, options, MHD_OPTION_END);
}

/// The client's address, or NULL. MHD_get_connection_info is variadic.
static inline const struct sockaddr *chttpd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// MHD_SIZE_UNKNOWN, a macro with a cast that Swift cannot import: a body whose length is not known.
static inline uint64_t chttpd_size_unknown(void) {
    return MHD_SIZE_UNKNOWN;
}

/// Whether this libmicrohttpd was built with TLS (GnuTLS).
static inline int chttpd_has_tls(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

#endif
