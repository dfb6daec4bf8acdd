import Foundation

/// A fresh NTFS filesystem in an image file (`mkntfs -F -f`), mounted through FUSE with
/// `ntfs-3g` in a temporary folder, for tests of what Windows' alternate data streams look
/// like on Linux. ntfs-3g's default `streams_interface=xattr` shows a stream `NAME` as the
/// attribute `user.NAME`, its value raw (no NUL): `setfattr -n user.Zone.Identifier` makes
/// the `Zone.Identifier` stream Windows reads, and removing the attribute deletes the stream
/// (checked with getfattr, ntfs-3g 2022.10.3 on Debian 12).
///
/// Mounting needs root, /dev/fuse and the ntfs-3g package: ``unavailable`` says why not (after
/// trying a real mount once), for a test's `.enabled(if:)`. The filesystem is unmounted by
/// ``unmount()`` or when the value goes away, always before the image is removed.
///
///     let ntfs = try await NTFSMount()
///     defer { ntfs.unmount() }
///
/// Its tools run off the pool: ``init(megabytes:)`` and ``remount(options:)`` are async, and
/// ``unmount()`` (a defer's, a deinit's) hands the unmounting to a thread of its own that holds
/// the folder until the filesystem is gone.
///     let file = ntfs.mountPoint + "/doc.txt"
public final class NTFSMount: @unchecked Sendable {
    /// The temporary folder holding the image and the mount point.
    public let folder = TemporaryFolder()
    /// Where the filesystem is mounted.
    public let mountPoint: String
    /// The image file.
    public let image: String

    private let lock = NSLock()
    private var mounted = false

    /// Makes a `megabytes` MiB image, formats it and mounts it; throws ``MountFailure`` with
    /// the tools' messages when any step fails.
    public init(megabytes: Int = 4) async throws {
        mountPoint = folder.path + "/mnt"
        image = folder.path + "/ntfs.img"
        try await offPool { [self] in try make(megabytes: megabytes) }
    }

    /// Makes, formats and mounts the image; blocks (called off the pool).
    private func make(megabytes: Int) throws {
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: image, contents: nil),
              truncate(image, off_t(megabytes) << 20) == 0 else {
            throw MountFailure(description: "cannot make the \(megabytes) MiB image \(image): errno \(errno)")
        }
        // -F: an image file, not a block device; -f: quick format (no zeroing); -q: quiet.
        let format = try ProcessRunner.runBlocking(Self.mkntfs, ["-F", "-f", "-q", image], timeLimit: 120)
        guard format.status == 0 else { throw MountFailure(description: "mkntfs failed: \(format)") }
        try mount(options: nil)
    }

    /// Unmounts (if mounted) and mounts the image again with ntfs-3g's `-o options` (nil: the
    /// defaults), e.g. `streams_interface=windows` to read a stream as the file `NAME:STREAM`
    /// as Windows names it.
    public func remount(options: String?) async throws {
        try await offPool { [self] in
            unmountBlocking()
            try mount(options: options)
        }
    }

    private func mount(options: String?) throws {
        // ntfs-3g forks its FUSE daemon and returns once the filesystem is mounted. The daemon
        // must not inherit the descriptor Foundation's Process watches to learn that its child
        // ended (it would wait for the daemon): python3 starts ntfs-3g with every descriptor
        // above standard error closed.
        let arguments = ["python3", "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:], close_fds=True))",
                         Self.ntfs3g] + (options.map { ["-o", $0] } ?? []) + [image, mountPoint]
        let mount = try ProcessRunner.runBlocking("/usr/bin/env", arguments, timeLimit: 120)
        guard mount.status == 0 else { throw MountFailure(description: "ntfs-3g could not mount the image: \(mount)") }
        lock.lock()
        mounted = true
        lock.unlock()
        guard Self.isMountPoint(mountPoint) else {
            unmountBlocking()
            throw MountFailure(description: "ntfs-3g returned 0 but \(mountPoint) is not a mount point")
        }
    }

    /// Unmounts (`umount`, then `fusermount -u`, then a lazy `umount -l` if the filesystem is
    /// still busy) and waits until the mount point is gone from the mount table, on a thread of
    /// its own that holds this value (and so its folder) until then; safe to call more than once.
    public func unmount() {
        Thread.detachNewThread { [self] in unmountBlocking() }
    }

    /// ``unmount()`` on the calling thread; blocks (called off the pool).
    private func unmountBlocking() {
        lock.lock()
        defer { lock.unlock() }
        guard mounted else { return }
        mounted = false
        Self.unmount(mountPoint)
    }

    private static func unmount(_ mountPoint: String) {
        let attempts: [(String, [String])] = [("/usr/bin/umount", [mountPoint]), ("/usr/bin/fusermount", ["-u", mountPoint]),
                                              ("/usr/bin/umount", ["-l", mountPoint])]
        for (tool, arguments) in attempts where FileManager.default.isExecutableFile(atPath: tool) {
            _ = try? ProcessRunner.runBlocking(tool, arguments, timeLimit: 60)
            if waitUntilBlocking(seconds: 10, { !Self.isMountPoint(mountPoint) }) { return }
        }
    }

    deinit {
        // Still mounted (a test that threw before its unmount): unmounted on a thread that holds
        // the folder until the filesystem is gone.
        lock.lock()
        let mounted = self.mounted
        lock.unlock()
        guard mounted else { return }
        let folder = self.folder, mountPoint = self.mountPoint
        Thread.detachNewThread {
            NTFSMount.unmount(mountPoint)
            _ = folder
        }
    }

    /// Why no NTFS image can be mounted here, or nil. Checks root, the tools and /dev/fuse, then
    /// mounts and unmounts a probe image once (a container may refuse FUSE mounts even to root).
    /// For a test's `.enabled { await NTFSMount.unavailable == nil }`.
    public static var unavailable: String? {
        get async { await probe.value }
    }

    private static let probe = Task<String?, Never> {
        if getuid() != 0 { return "not root: mounting a FUSE filesystem with ntfs-3g needs root here" }
        for tool in [mkntfs, ntfs3g] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (apt-get install ntfs-3g)"
        }
        let fd = open("/dev/fuse", O_RDWR)
        guard fd >= 0 else { return "FUSE is unavailable: /dev/fuse cannot be opened (errno \(errno))" }
        close(fd)
        do {
            let probe = try await NTFSMount(megabytes: 2)
            await offPool { probe.unmountBlocking() }
            return nil
        } catch {
            return "mounting an NTFS image through FUSE failed here: \(error)"
        }
    }

    /// The formatter and the FUSE driver, both from Debian's ntfs-3g package.
    public static let mkntfs = "/usr/sbin/mkntfs"
    public static let ntfs3g = "/usr/bin/ntfs-3g"

    /// Whether `path` is a mount point now (listed in /proc/self/mounts).
    public static func isMountPoint(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return false }
        // Fields are space-separated with spaces in paths written as \040.
        let escaped = path.replacingOccurrences(of: "\\", with: "\\134").replacingOccurrences(of: " ", with: "\\040")
        return table.split(separator: "\n").contains { $0.split(separator: " ").dropFirst().first.map(String.init) == escaped }
    }

    /// A step of making or mounting the image failed.
    public struct MountFailure: Error, CustomStringConvertible {
        public let description: String
    }
}
