import Foundation
import OutpostObjectStorage
import Testing

@Suite struct S3LocationTests {
    @Test func aURLNamesTheEndpointBucketCredentialsAndRegion() throws {
        let location = try S3Location("http://AKID:se%2Fcret@127.0.0.1:9000/outpost-files?region=eu-west-1", environment: [:])
        #expect(location.endpoint.absoluteString == "http://127.0.0.1:9000")
        #expect(location.bucket == "outpost-files" && location.region == "eu-west-1")
        #expect(location.accessKey == "AKID" && location.secretKey == "se/cret")
        #expect(!location.redactedDescription.contains("cret"))
    }

    @Test func credentialsAndRegionComeFromAWSsVariablesWhenTheURLHasNone() throws {
        let environment = ["AWS_ACCESS_KEY_ID": "env-key", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_REGION": "ap-south-1"]
        let location = try S3Location("https://s3.example.org/bucket", environment: environment)
        #expect(location.accessKey == "env-key" && location.secretKey == "env-secret" && location.region == "ap-south-1")
    }

    @Test func whatIsNotABucketURLIsRefusedWithoutShowingTheSecret() {
        for bad in [
            "s3://key:secret@host/bucket", "http://key:secret@/bucket", "http://key:secret@host", "http://key:secret@host/a/b",
            "http://key:secret@host/UPPER", "http://key:secret@host/ab",
        ] {
            #expect {
                try S3Location(bad, environment: [:])
            } throws: { error in
                !"\(error)".contains("secret") && error is S3Location.Failure
            }
        }
        #expect(throws: S3Location.Failure.self) { try S3Location("http://host/bucket", environment: [:]) }
    }
}
