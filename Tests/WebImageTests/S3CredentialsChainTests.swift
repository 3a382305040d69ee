import Foundation
import Testing
@testable import WebImage

/// A temporary home directory with `.aws/credentials` and `.aws/config`, removed afterwards.
private func withAWSHome<T>(credentials: String?, config: String?, _ body: (String) throws -> T) throws -> T {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("aws-home-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: home + "/.aws", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: home) }
    if let credentials { try Data(credentials.utf8).write(to: URL(fileURLWithPath: home + "/.aws/credentials")) }
    if let config { try Data(config.utf8).write(to: URL(fileURLWithPath: home + "/.aws/config")) }
    return try body(home)
}

private let credentialsFile = """
    # comment
    [default]
    aws_access_key_id = AKIDDEFAULT
    aws_secret_access_key = secret/default+1

    [dev]
    AWS_ACCESS_KEY_ID=AKIDDEV
    aws_secret_access_key=secret-dev
    aws_session_token = token-dev
    """

private let configFile = """
    [default]
    region = eu-west-1

    [profile dev]
    region = us-west-2
    s3 =
      endpoint_url = http://127.0.0.1:9000
      addressing_style = path

    [profile cfgonly]
    aws_access_key_id = AKIDCFG
    aws_secret_access_key = secret-cfg
    endpoint_url = https://storage.example.com

    [profile roles]
    role_arn = arn:aws:iam::123456789012:role/r
    credential_process = /bin/true
    """

@Suite("AWS settings: environment, shared credentials and config files, profiles")
struct S3CredentialsChainTests {
    @Test("Given the AWS environment variables, then they win over the shared files")
    func environmentFirst() throws {
        try withAWSHome(credentials: credentialsFile, config: configFile) { home in
            let settings = try AWSSettings.resolve(
                environment: [
                    "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret-env", "AWS_SESSION_TOKEN": "token-env",
                    "AWS_DEFAULT_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "http://10.0.0.1:9000",
                    "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9999",
                ], homeDirectory: home)
            #expect(settings.credentials == AWSCredentials(accessKeyID: "AKIDENV", secretAccessKey: "secret-env", sessionToken: "token-env"))
            #expect(settings.credentialsSource == "environment variables")
            #expect(settings.region == "ap-south-1")
            #expect(settings.endpointURL?.absoluteString == "http://127.0.0.1:9999")
            let region = try AWSSettings.resolve(environment: ["AWS_REGION": "us-east-2", "AWS_DEFAULT_REGION": "x"], homeDirectory: home)
            #expect(region.region == "us-east-2")
        }
    }

    @Test("Given no variables, then the default profile of the shared files is read")
    func defaultProfile() throws {
        try withAWSHome(credentials: credentialsFile, config: configFile) { home in
            let settings = try AWSSettings.resolve(environment: [:], homeDirectory: home)
            #expect(settings.credentials == AWSCredentials(accessKeyID: "AKIDDEFAULT", secretAccessKey: "secret/default+1"))
            #expect(settings.credentialsSource == "shared credentials file \(home)/.aws/credentials [default]")
            #expect(settings.region == "eu-west-1")
            #expect(settings.endpointURL == nil)
            #expect(settings.pathStyle == nil)
        }
    }

    @Test("Given AWS_PROFILE, then its credentials, session token, region and nested s3 settings are read")
    func namedProfile() throws {
        try withAWSHome(credentials: credentialsFile, config: configFile) { home in
            let settings = try AWSSettings.resolve(environment: ["AWS_PROFILE": "dev"], homeDirectory: home)
            #expect(settings.credentials == AWSCredentials(accessKeyID: "AKIDDEV", secretAccessKey: "secret-dev", sessionToken: "token-dev"))
            #expect(settings.region == "us-west-2")
            #expect(settings.endpointURL?.absoluteString == "http://127.0.0.1:9000")
            #expect(settings.pathStyle == true)
            #expect(settings.profile == "dev")
        }
    }

    @Test("Given credentials only in the config file, then they are read from its [profile x] section")
    func configFileCredentials() throws {
        try withAWSHome(credentials: credentialsFile, config: configFile) { home in
            let settings = try AWSSettings.resolve(environment: ["AWS_PROFILE": "cfgonly"], homeDirectory: home)
            #expect(settings.credentials?.accessKeyID == "AKIDCFG")
            #expect(settings.credentialsSource == "config file \(home)/.aws/config [profile cfgonly]")
            #expect(settings.endpointURL?.absoluteString == "https://storage.example.com")
        }
    }

    @Test("Given AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, then those files are read instead")
    func filesFromVariables() throws {
        try withAWSHome(credentials: nil, config: nil) { home in
            try Data("[default]\naws_access_key_id=AKIDALT\naws_secret_access_key=alt\n".utf8)
                .write(to: URL(fileURLWithPath: home + "/alt-credentials"))
            try Data("[default]\nregion=sa-east-1\n".utf8).write(to: URL(fileURLWithPath: home + "/alt-config"))
            let settings = try AWSSettings.resolve(
                environment: ["AWS_SHARED_CREDENTIALS_FILE": "~/alt-credentials", "AWS_CONFIG_FILE": home + "/alt-config"],
                homeDirectory: home)
            #expect(settings.credentials?.accessKeyID == "AKIDALT")
            #expect(settings.region == "sa-east-1")
        }
    }

    @Test("Given a profile that only names unsupported sources, then there are no credentials and the reason names them")
    func unsupportedSourcesNamed() throws {
        try withAWSHome(credentials: nil, config: configFile) { home in
            let settings = try AWSSettings.resolve(
                environment: ["AWS_PROFILE": "roles", "AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token"], homeDirectory: home)
            #expect(settings.credentials == nil)
            #expect(settings.credentialsSource.contains("no credentials"))
            #expect(settings.credentialsSource.contains("credential_process"))
            #expect(settings.credentialsSource.contains("role_arn"))
            #expect(settings.credentialsSource.contains("web identity"))
        }
    }

    @Test("Given an endpoint that is not an http URL, then resolving fails with invalidURL; an ignored endpoint is dropped")
    func badEndpoint() throws {
        try withAWSHome(credentials: nil, config: nil) { home in
            #expect(throws: WebImageError.self) {
                try AWSSettings.resolve(environment: ["AWS_ENDPOINT_URL": "ftp://x"], homeDirectory: home)
            }
            let ignored = try AWSSettings.resolve(
                environment: ["AWS_ENDPOINT_URL": "ftp://x", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"], homeDirectory: home)
            #expect(ignored.endpointURL == nil)
        }
    }

    @Test("Given a shared file that is a directory, then resolving fails with fileAccess")
    func unreadableFile() throws {
        try withAWSHome(credentials: nil, config: nil) { home in
            try FileManager.default.createDirectory(atPath: home + "/.aws/credentials", withIntermediateDirectories: true)
            #expect(throws: WebImageError.self) { try AWSSettings.resolve(environment: [:], homeDirectory: home) }
        }
    }
}
