#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes a program started with `posix_spawn` inherit no descriptor past standard input, output
/// and error.
///
/// The servers the tests start (PostgreSQL through `pg_ctl start`, tmux's server) outlive the
/// command that started them, keeping every descriptor it inherited. On Linux, Foundation's
/// `Process` learns that its child ended when a socket the child inherited closes: a server
/// started by another thread at that moment keeps the socket open, so the child is never
/// reaped and `waitUntilExit()` never returns. Closing everything past 2 in the spawned program
/// leaves it nothing of the test process's.
///
/// glibc has `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which Swift's Glibc
/// module does not declare: it is found by name. Elsewhere (Darwin's `posix_spawn`, an older
/// glibc) this does nothing.
package func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    #if canImport(Glibc)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    #endif
}
