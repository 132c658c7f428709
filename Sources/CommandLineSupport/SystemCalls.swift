#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// The C library's read, write and open, by names no type's own `read`, `write` or `open` hides
// (`OutputFile`, `Console`, `Terminal` have methods of those names), on every platform.

/// `read(2)`.
package func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
    #elseif canImport(Musl)
        Musl.read(descriptor, buffer, count)
    #elseif canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
    #endif
}

/// `write(2)`.
package func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
    #elseif canImport(Darwin)
        Darwin.write(descriptor, bytes, count)
    #endif
}

/// `open(2)` with a mode.
package func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.open(path, flags, mode)
    #elseif canImport(Musl)
        Musl.open(path, flags, mode)
    #elseif canImport(Darwin)
        Darwin.open(path, flags, mode)
    #endif
}
