import Foundation

extension AWSSettings {
    /// The settings the AWS SDKs would use, from `environment` and the shared files.
    ///
    /// Credentials, first found wins:
    /// 1. `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`, or the older
    ///    `AWS_SECURITY_TOKEN`);
    /// 2. the shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, else
    ///    `~/.aws/credentials`), section `[profile]`;
    /// 3. the config file (`AWS_CONFIG_FILE`, else `~/.aws/config`), section `[profile name]`
    ///    (`[default]` for the default profile).
    ///
    /// The profile is `AWS_PROFILE` (else `AWS_DEFAULT_PROFILE`, else `default`). The region is
    /// `AWS_REGION`, `AWS_DEFAULT_REGION`, then the profile's `region`; the endpoint
    /// `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, then the profile's `s3 = endpoint_url` or
    /// `endpoint_url` (`AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true` ignores all of these).
    ///
    /// Other sources the AWS SDKs know — `credential_process`, assumed roles (`role_arn`),
    /// IAM Identity Center (`sso_*`), web identity tokens (`AWS_WEB_IDENTITY_TOKEN_FILE`), the
    /// container credentials endpoint and EC2 instance metadata (IMDSv2) — are not read; when
    /// nothing above gives credentials, ``credentialsSource`` names the ones that were
    /// configured and skipped.
    ///
    /// - Parameters:
    ///   - environment: the variables to read (default: the process's).
    ///   - homeDirectory: where `~/.aws` is (default: `HOME` from `environment`, else the
    ///     user's home directory).
    /// - Throws: ``/WebImageCore/WebImageError/fileAccess(path:reason:)`` when a shared file
    ///   exists but cannot be read; ``/WebImageCore/WebImageError/invalidURL(_:)`` for an
    ///   endpoint that is not an `http` or `https` URL.
    public static func resolve(
        environment: [String: String] = ProcessInfo.processInfo.environment, homeDirectory: String? = nil
    ) throws -> AWSSettings {
        func variable(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
            return value
        }
        let home = homeDirectory ?? variable("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
        func expand(_ path: String) -> String {
            path == "~" || path.hasPrefix("~/") ? home + path.dropFirst() : path
        }
        let profile = variable("AWS_PROFILE") ?? variable("AWS_DEFAULT_PROFILE") ?? "default"
        let credentialsPath = expand(variable("AWS_SHARED_CREDENTIALS_FILE") ?? "~/.aws/credentials")
        let configPath = expand(variable("AWS_CONFIG_FILE") ?? "~/.aws/config")
        let credentialsSection = try AWSSharedConfigFile.read(credentialsPath)?.section(profile)
        let configFile = try AWSSharedConfigFile.read(configPath)
        let configSection =
            configFile?.section(profile == "default" ? "default" : "profile \(profile)")
            ?? (profile == "default" ? configFile?.section("profile default") : nil)

        var settings = AWSSettings(credentials: nil, credentialsSource: "", profile: profile)
        if let keyID = variable("AWS_ACCESS_KEY_ID"), let secret = variable("AWS_SECRET_ACCESS_KEY") {
            settings.credentials = AWSCredentials(
                accessKeyID: keyID, secretAccessKey: secret, sessionToken: variable("AWS_SESSION_TOKEN") ?? variable("AWS_SECURITY_TOKEN"))
            settings.credentialsSource = "environment variables"
        } else if let credentials = Self.credentials(in: credentialsSection) {
            settings.credentials = credentials
            settings.credentialsSource = "shared credentials file \(credentialsPath) [\(profile)]"
        } else if let credentials = Self.credentials(in: configSection) {
            settings.credentials = credentials
            settings.credentialsSource = "config file \(configPath) [\(profile == "default" ? "default" : "profile \(profile)")]"
        } else {
            settings.credentialsSource = Self.noCredentialsReason(
                environment: variable, profileKeys: (credentialsSection ?? [:]).merging(configSection ?? [:]) { a, _ in a },
                profile: profile, paths: [credentialsPath, configPath])
        }
        settings.region = variable("AWS_REGION") ?? variable("AWS_DEFAULT_REGION") ?? configSection?["region"].flatMap { $0.isEmpty ? nil : $0 }
        let ignoreEndpoints = variable("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")?.lowercased() == "true"
        if !ignoreEndpoints,
            let endpoint = variable("AWS_ENDPOINT_URL_S3") ?? variable("AWS_ENDPOINT_URL") ?? configSection?["s3.endpoint_url"]
                ?? configSection?["endpoint_url"]
        {
            guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                url.host?.isEmpty == false
            else { throw WebImageError.invalidURL("S3 endpoint \(endpoint) (not an http or https URL with a host)") }
            settings.endpointURL = url
        }
        switch configSection?["s3.addressing_style"]?.lowercased() {
        case "path"?: settings.pathStyle = true
        case "virtual"?: settings.pathStyle = false
        default: break
        }
        return settings
    }

    private static func credentials(in section: [String: String]?) -> AWSCredentials? {
        guard let section, let keyID = section["aws_access_key_id"], !keyID.isEmpty,
            let secret = section["aws_secret_access_key"], !secret.isEmpty
        else { return nil }
        let token = section["aws_session_token"] ?? section["aws_security_token"]
        return AWSCredentials(accessKeyID: keyID, secretAccessKey: secret, sessionToken: token?.isEmpty == false ? token : nil)
    }

    /// Why no credentials were found, naming the sources that are configured but not read here.
    private static func noCredentialsReason(
        environment variable: (String) -> String?, profileKeys: [String: String], profile: String, paths: [String]
    ) -> String {
        var skipped: [String] = []
        if profileKeys["credential_process"] != nil { skipped.append("credential_process") }
        if profileKeys["role_arn"] != nil { skipped.append("role_arn (assumed roles)") }
        if profileKeys.keys.contains(where: { $0.hasPrefix("sso_") }) || profileKeys["sso_session"] != nil {
            skipped.append("IAM Identity Center (sso_*)")
        }
        if variable("AWS_WEB_IDENTITY_TOKEN_FILE") != nil || profileKeys["web_identity_token_file"] != nil {
            skipped.append("web identity tokens")
        }
        if variable("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != nil || variable("AWS_CONTAINER_CREDENTIALS_FULL_URI") != nil {
            skipped.append("the container credentials endpoint")
        }
        var reason =
            "no credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set and profile '\(profile)' has no "
            + "aws_access_key_id/aws_secret_access_key in \(paths.joined(separator: " or "))"
        if !skipped.isEmpty { reason += " (configured but not supported here: \(skipped.joined(separator: ", ")))" }
        return reason
    }
}
