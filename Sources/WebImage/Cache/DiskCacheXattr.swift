import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C library's extended-attribute calls, looked up at run time.
///
/// Swift's `Glibc` module does not export `<sys/xattr.h>`, so the four functions are found
/// with `dlsym` in the C library already loaded (Linux only; Apple's signatures differ). When
/// one is missing every call reports `ENOTSUP`, and the disk cache falls back to side records.
enum XattrCalls {
    private typealias SetFunction = @convention(c) (
        UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32
    ) -> Int32
    private typealias FSetFunction = @convention(c) (
        Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32
    ) -> Int32
    private typealias GetFunction = @convention(c) (
        UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int
    ) -> Int
    private typealias RemoveFunction = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32

    private static func lookup<F>(_ name: String, as type: F.Type) -> F? {
        #if os(Linux)
            guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
            return unsafeBitCast(symbol, to: type)
        #else
            // Apple's calls take extra position/options arguments: use side records there.
            return nil
        #endif
    }

    private static let setFunction = lookup("setxattr", as: SetFunction.self)
    private static let fsetFunction = lookup("fsetxattr", as: FSetFunction.self)
    private static let getFunction = lookup("getxattr", as: GetFunction.self)
    private static let removeFunction = lookup("removexattr", as: RemoveFunction.self)

    static func set(_ path: String, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32 {
        guard let setFunction else { return unsupported() }
        return setFunction(path, name, value, size, flags)
    }

    static func fset(_ fd: Int32, _ name: String, _ value: UnsafeRawPointer?, _ size: Int, _ flags: Int32) -> Int32 {
        guard let fsetFunction else { return unsupported() }
        return fsetFunction(fd, name, value, size, flags)
    }

    static func get(_ path: String, _ name: String, _ value: UnsafeMutableRawPointer?, _ size: Int) -> Int {
        guard let getFunction else { return Int(unsupported()) }
        return getFunction(path, name, value, size)
    }

    static func remove(_ path: String, _ name: String) -> Int32 {
        guard let removeFunction else { return unsupported() }
        return removeFunction(path, name)
    }

    private static func unsupported() -> Int32 {
        errno = ENOTSUP
        return -1
    }
}
