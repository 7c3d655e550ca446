"""ExecuteStatement (PartiQL) through boto3: the four statements, parameters, Query versus
Scan paths with identical answers, pagination, RETURNING, and DynamoDB's refusals."""
import pytest


@pytest.fixture(scope="module")
def music(ddb):
    ddb.create_table(TableName="Music", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "Artist", "KeyType": "HASH"},
                                {"AttributeName": "SongTitle", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "Artist", "AttributeType": "S"},
                                           {"AttributeName": "SongTitle", "AttributeType": "S"},
                                           {"AttributeName": "Genre", "AttributeType": "S"}],
                     GlobalSecondaryIndexes=[{
                         "IndexName": "ByGenre", "Projection": {"ProjectionType": "ALL"},
                         "KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"}]}])
    return "Music"


def run(ddb, statement, parameters=None, **options):
    if parameters:
        options["Parameters"] = parameters
    answer = ddb.execute_statement(Statement=statement, **options)
    answer.pop("ResponseMetadata")
    return answer


def titles(answer):
    return sorted(item["SongTitle"]["S"] for item in answer["Items"])


def test_insert_select_update_delete(ddb, music):
    assert run(ddb, "INSERT INTO Music VALUE {'Artist': 'Acme', 'SongTitle': 'One', "
                    "'Awards': 1, 'Genre': 'rock', 'Tags': <<'a', 'b'>>, "
                    "'Info': {'year': 2020, 'live': TRUE, 'credits': ['x', NULL]}}") == {"Items": []}
    run(ddb, 'INSERT INTO "Music" VALUE {\'Artist\': ?, \'SongTitle\': ?, \'Awards\': ?}',
        [{"S": "Acme"}, {"S": "Two"}, {"N": "3"}])
    run(ddb, "INSERT INTO Music VALUE {'Artist': 'Other', 'SongTitle': 'Three', 'Genre': 'jazz'}")

    item = ddb.get_item(TableName="Music", Key={"Artist": {"S": "Acme"}, "SongTitle": {"S": "One"}})["Item"]
    assert item == {"Artist": {"S": "Acme"}, "SongTitle": {"S": "One"}, "Awards": {"N": "1"},
                    "Genre": {"S": "rock"}, "Tags": {"SS": ["a", "b"]},
                    "Info": {"M": {"year": {"N": "2020"}, "live": {"BOOL": True},
                                   "credits": {"L": [{"S": "x"}, {"NULL": True}]}}}}

    # A partition-key equality runs as a Query; the same answer comes from a Scan path.
    assert titles(run(ddb, "SELECT * FROM Music WHERE Artist = 'Acme'")) == ["One", "Two"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Artist = 'Acme' AND Awards >= 1")) == ["One", "Two"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Awards >= 1 OR Genre = 'jazz'")) == ["One", "Three", "Two"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Artist = 'Acme' AND begins_with(SongTitle, 'T')")) == ["Two"]
    assert run(ddb, "SELECT Awards, Info.\"year\" FROM Music WHERE Artist = ? AND SongTitle = ?",
               [{"S": "Acme"}, {"S": "One"}])["Items"] == [
        {"Awards": {"N": "1"}, "Info": {"M": {"year": {"N": "2020"}}}}]
    assert titles(run(ddb, 'SELECT * FROM "Music"."ByGenre" WHERE Genre = \'jazz\'')) == ["Three"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Genre IS MISSING")) == ["Two"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Awards IN [3, 4]")) == ["Two"]
    assert titles(run(ddb, "SELECT * FROM Music WHERE Awards BETWEEN 0 AND 2")) == ["One"]

    # UPDATE with arithmetic, several SET clauses, REMOVE and RETURNING.
    answer = run(ddb, "UPDATE Music SET Awards = Awards + 1 SET Genre = 'pop' REMOVE Tags "
                      "WHERE Artist = 'Acme' AND SongTitle = 'One' RETURNING MODIFIED NEW *")
    assert answer == {"Items": [{"Awards": {"N": "2"}, "Genre": {"S": "pop"}}]}
    # set_add / set_delete are the API's ADD and DELETE actions.
    run(ddb, "UPDATE Music SET Tags = set_add(Tags, <<'x', 'y'>>) "
             "WHERE Artist = 'Acme' AND SongTitle = 'One'")
    run(ddb, "UPDATE Music SET Tags = set_delete(Tags, <<'x'>>) "
             "WHERE Artist = 'Acme' AND SongTitle = 'One'")
    assert run(ddb, "SELECT Tags FROM Music WHERE Artist = 'Acme' AND SongTitle = 'One'")[
        "Items"] == [{"Tags": {"SS": ["y"]}}]
    # DELETE with a condition besides the key, RETURNING ALL OLD *.
    answer = run(ddb, "DELETE FROM Music WHERE Artist = 'Acme' AND SongTitle = 'Two' AND Awards = 3 "
                      "RETURNING ALL OLD *")
    assert answer["Items"][0]["Awards"] == {"N": "3"}
    assert titles(run(ddb, "SELECT * FROM Music WHERE Artist = 'Acme'")) == ["One"]


def test_pagination_with_limit(ddb, music):
    for n in range(5):
        run(ddb, f"INSERT INTO Music VALUE {{'Artist': 'Paged', 'SongTitle': 'S{n}'}}")
    seen, token = [], None
    while True:
        options = {"Limit": 2}
        if token:
            options["NextToken"] = token
        answer = run(ddb, "SELECT * FROM Music WHERE Artist = 'Paged'", **options)
        seen += titles(answer)
        token = answer.get("NextToken")
        if not token:
            break
    assert seen == ["S0", "S1", "S2", "S3", "S4"]


@pytest.mark.parametrize("statement, parameters, error, message", [
    ("INSERT INTO Music VALUE {'Artist': 'Dup', 'SongTitle': 'One'}", None,
     "DuplicateItemException", "Duplicate primary key exists in table"),
    ("UPDATE Music SET Awards = 1 WHERE Artist = 'Dup'", None, "ValidationException",
     "Where clause does not contain a mandatory equality on all key attributes"),
    ("UPDATE Music SET Awards = 1 WHERE Artist = 'Nobody' AND SongTitle = 'None'", None,
     "ConditionalCheckFailedException", "The conditional request failed"),
    ("DELETE FROM Music WHERE Artist = 'Dup' AND SongTitle = 'One' AND Awards = 99", None,
     "ConditionalCheckFailedException", "The conditional request failed"),
    ("SELECT * FROM Music WHERE Artist = ?", None, "ValidationException",
     "Number of parameters in request and statement doesn't match."),
    ("SELECT * FROM Music", [{"S": "extra"}], "ValidationException",
     "Number of parameters in request and statement doesn't match."),
    ("SELEKT * FROM Music", None, "ValidationException",
     "Statement wasn't well formed, can't be processed: unexpected token 'SELEKT'"),
    ("SELECT * FROM Nowhere", None, "ResourceNotFoundException", "Requested resource not found"),
    ("INSERT INTO Music VALUE {'Artist': 'NoSortKey'}", None, "ValidationException",
     "One or more parameter values were invalid: Missing the key SongTitle in the item"),
])
def test_refusals(ddb, music, statement, parameters, error, message):
    if not ddb.get_item(TableName="Music", Key={"Artist": {"S": "Dup"}, "SongTitle": {"S": "One"}}).get("Item"):
        run(ddb, "INSERT INTO Music VALUE {'Artist': 'Dup', 'SongTitle': 'One'}")
    with pytest.raises(ddb.exceptions.ClientError) as refused:
        run(ddb, statement, parameters)
    assert refused.value.response["Error"] == {"Code": error, "Message": message}
    assert ddb.get_item(TableName="Music", Key={"Artist": {"S": "Dup"}, "SongTitle": {"S": "One"}})[
        "Item"] == {"Artist": {"S": "Dup"}, "SongTitle": {"S": "One"}}


def test_execute_transaction(ddb, music):
    ddb.execute_transaction(TransactStatements=[
        {"Statement": "INSERT INTO Music VALUE {'Artist': 'Tx', 'SongTitle': 'A', 'n': 1}"},
        {"Statement": "INSERT INTO Music VALUE {'Artist': 'Tx', 'SongTitle': 'B', 'n': ?}",
         "Parameters": [{"N": "2"}]},
    ])
    # All or nothing: the duplicate INSERT cancels the UPDATE beside it.
    with pytest.raises(ddb.exceptions.TransactionCanceledException) as cancelled:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE Music SET n = 100 WHERE Artist = 'Tx' AND SongTitle = 'B'"},
            {"Statement": "INSERT INTO Music VALUE {'Artist': 'Tx', 'SongTitle': 'A'}"},
        ])
    assert cancelled.value.response["CancellationReasons"] == [
        {"Code": "None"},
        {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}]
    answer = ddb.execute_transaction(TransactStatements=[
        {"Statement": "SELECT n FROM Music WHERE Artist = 'Tx' AND SongTitle = 'B'"},
        {"Statement": "SELECT * FROM Music WHERE Artist = 'Tx' AND SongTitle = 'missing'"},
    ])
    assert answer["Responses"] == [{"Item": {"n": {"N": "2"}}}, {}]
    with pytest.raises(ddb.exceptions.ClientError) as mixed:
        ddb.execute_transaction(TransactStatements=[
            {"Statement": "SELECT * FROM Music WHERE Artist = 'Tx' AND SongTitle = 'B'"},
            {"Statement": "DELETE FROM Music WHERE Artist = 'Tx' AND SongTitle = 'B'"},
        ])
    assert mixed.value.response["Error"] == {
        "Code": "ValidationException",
        "Message": "A transaction must contain either only reads or only writes"}


def test_batch_execute_statement_answers_each_statement(ddb, music):
    answer = ddb.batch_execute_statement(Statements=[
        {"Statement": "INSERT INTO Music VALUE {'Artist': 'Batch', 'SongTitle': 'A'}"},
        {"Statement": "INSERT INTO Music VALUE {'Artist': 'Batch', 'SongTitle': 'A'}"},
        {"Statement": "UPDATE Music SET n = 1 WHERE Artist = 'Batch' AND SongTitle = 'Z'"},
        {"Statement": "SELEKT"},
    ])
    assert answer["Responses"] == [
        {"TableName": "Music"},
        {"TableName": "Music", "Error": {"Code": "DuplicateItem",
                                         "Message": "Duplicate primary key exists in table"}},
        {"TableName": "Music", "Error": {"Code": "ConditionalCheckFailed",
                                         "Message": "The conditional request failed"}},
        {"Error": {"Code": "ValidationError",
                   "Message": "Statement wasn't well formed, can't be processed: unexpected token 'SELEKT'"}},
    ]
    answer = ddb.batch_execute_statement(Statements=[
        {"Statement": "SELECT * FROM Music WHERE Artist = 'Batch' AND SongTitle = 'A'",
         "ConsistentRead": True},
        {"Statement": "SELECT * FROM Music WHERE Artist = 'Batch' AND SongTitle = 'nothing'"},
    ])
    assert answer["Responses"] == [
        {"TableName": "Music", "Item": {"Artist": {"S": "Batch"}, "SongTitle": {"S": "A"}}},
        {"TableName": "Music"}]


def test_writes_report_consumed_capacity_when_asked(ddb, music):
    # ExecuteStatement's output carries ConsumedCapacity for every statement, writes included:
    # a 1 KB-or-smaller item costs one write unit on the table (and one on the GSI it enters,
    # which TOTAL sums).
    answer = run(ddb, "INSERT INTO Music VALUE {'Artist': 'Cap', 'SongTitle': 'One', 'Genre': 'x'}",
                 ReturnConsumedCapacity="TOTAL")
    assert answer == {"Items": [], "ConsumedCapacity": {"TableName": "Music", "CapacityUnits": 2.0,
                                                    "WriteCapacityUnits": 2.0}}
    answer = run(ddb, "UPDATE Music SET Plays = 1 WHERE Artist = 'Cap' AND SongTitle = 'One'",
                 ReturnConsumedCapacity="TOTAL")
    assert answer == {"Items": [], "ConsumedCapacity": {"TableName": "Music", "CapacityUnits": 2.0,
                                                    "WriteCapacityUnits": 2.0}}
    answer = run(ddb, "DELETE FROM Music WHERE Artist = 'Cap' AND SongTitle = 'One'")
    assert answer == {"Items": []}
