// The AWS SDK for Go v2 against the real ddbd binary (DDBD_BINARY), as the SDK's
// documentation shows it: a table with a GSI and its waiters, items marshalled from structs,
// conditional writes built with the expression package, queries with sort-key conditions,
// filters and a paginator, batches and transactions.
package ddbdgo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type Order struct {
	Customer string   `dynamodbav:"customer"`
	OrderID  string   `dynamodbav:"orderId"`
	State    string   `dynamodbav:"state"`
	PlacedAt int      `dynamodbav:"placedAt"`
	Amount   float64  `dynamodbav:"amount"`
	Tags     []string `dynamodbav:"tags,stringset,omitempty"`
}

// startDdbd runs the binary on a free loopback port, in memory, until the test ends.
func startDdbd(t *testing.T) *dynamodb.Client {
	binary := os.Getenv("DDBD_BINARY")
	if binary == "" {
		t.Fatal("DDBD_BINARY is not set")
	}
	cmd := exec.Command(binary, "--address", "127.0.0.1", "--port", "0", "--in-memory")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	listening := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`)
	lines := bufio.NewScanner(stderr)
	port := ""
	for port == "" && lines.Scan() {
		if match := listening.FindStringSubmatch(lines.Text()); match != nil {
			port = match[1]
		}
	}
	if port == "" {
		t.Fatal("ddbd did not start")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	return dynamodb.New(dynamodb.Options{
		Region:           "us-east-1",
		Credentials:      credentials.NewStaticCredentialsProvider("AKIDGO", "secret", ""),
		EndpointResolver: dynamodb.EndpointResolverFromURL("http://127.0.0.1:" + port),
		RetryMaxAttempts: 1,
	})
}

func createOrders(ctx context.Context, t *testing.T, client *dynamodb.Client) {
	_, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("Orders"),
		BillingMode: types.BillingModePayPerRequest,
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("customer"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("orderId"), KeyType: types.KeyTypeRange},
		},
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("customer"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("orderId"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("state"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("placedAt"), AttributeType: types.ScalarAttributeTypeN},
		},
		GlobalSecondaryIndexes: []types.GlobalSecondaryIndex{{
			IndexName: aws.String("byState"),
			KeySchema: []types.KeySchemaElement{
				{AttributeName: aws.String("state"), KeyType: types.KeyTypeHash},
				{AttributeName: aws.String("placedAt"), KeyType: types.KeyTypeRange},
			},
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	waiter := dynamodb.NewTableExistsWaiter(client)
	described, err := waiter.WaitForOutput(ctx, &dynamodb.DescribeTableInput{
		TableName: aws.String("Orders")}, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if described.Table.TableStatus != types.TableStatusActive {
		t.Fatalf("table status %s", described.Table.TableStatus)
	}
}

func put(ctx context.Context, t *testing.T, client *dynamodb.Client, order Order,
	condition *expression.ConditionBuilder) error {
	item, err := attributevalue.MarshalMap(order)
	if err != nil {
		t.Fatal(err)
	}
	input := &dynamodb.PutItemInput{TableName: aws.String("Orders"), Item: item}
	if condition != nil {
		built, err := expression.NewBuilder().WithCondition(*condition).Build()
		if err != nil {
			t.Fatal(err)
		}
		input.ConditionExpression = built.Condition()
		input.ExpressionAttributeNames = built.Names()
		input.ExpressionAttributeValues = built.Values()
	}
	_, err = client.PutItem(ctx, input)
	return err
}

func orderIDs(t *testing.T, items []map[string]types.AttributeValue) []string {
	var orders []Order
	if err := attributevalue.UnmarshalListOfMaps(items, &orders); err != nil {
		t.Fatal(err)
	}
	ids := []string{}
	for _, order := range orders {
		ids = append(ids, order.OrderID)
	}
	return ids
}

func expectIDs(t *testing.T, what string, got, want []string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

func TestItemsConditionsQueriesBatchesAndTransactions(t *testing.T) {
	ctx := context.Background()
	client := startDdbd(t)
	createOrders(ctx, t, client)

	// A conditional put, refused the second time with the typed exception.
	notThere := expression.AttributeNotExists(expression.Name("orderId"))
	first := Order{"ann", "o-1", "OPEN", 100, 25.5, []string{"gift"}}
	if err := put(ctx, t, client, first, &notThere); err != nil {
		t.Fatal(err)
	}
	var conditionFailed *types.ConditionalCheckFailedException
	if err := put(ctx, t, client, first, &notThere); !errors.As(err, &conditionFailed) {
		t.Fatalf("second conditional put: %v", err)
	}

	// An update built with the expression package, under a condition.
	update := expression.Set(expression.Name("state"), expression.Value("SHIPPED")).
		Add(expression.Name("amount"), expression.Value(4.5)).
		Add(expression.Name("tags"), expression.Value(&types.AttributeValueMemberSS{Value: []string{"fragile"}}))
	isOpen := expression.Name("state").Equal(expression.Value("OPEN"))
	built, err := expression.NewBuilder().WithUpdate(update).WithCondition(isOpen).Build()
	if err != nil {
		t.Fatal(err)
	}
	key := map[string]types.AttributeValue{
		"customer": &types.AttributeValueMemberS{Value: "ann"},
		"orderId":  &types.AttributeValueMemberS{Value: "o-1"},
	}
	updated, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("Orders"), Key: key, UpdateExpression: built.Update(),
		ConditionExpression: built.Condition(), ExpressionAttributeNames: built.Names(),
		ExpressionAttributeValues: built.Values(), ReturnValues: types.ReturnValueAllNew,
	})
	if err != nil {
		t.Fatal(err)
	}
	var after Order
	if err := attributevalue.UnmarshalMap(updated.Attributes, &after); err != nil {
		t.Fatal(err)
	}
	sort.Strings(after.Tags)
	if after.State != "SHIPPED" || after.Amount != 30 || fmt.Sprint(after.Tags) != "[fragile gift]" {
		t.Fatalf("after the update: %+v", after)
	}
	if _, err := client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String("Orders"), Key: key, UpdateExpression: built.Update(),
		ConditionExpression: built.Condition(), ExpressionAttributeNames: built.Names(),
		ExpressionAttributeValues: built.Values(),
	}); !errors.As(err, &conditionFailed) {
		t.Fatalf("second conditional update: %v", err)
	}

	// A batch of 30 orders, in requests of 25.
	var writes []types.WriteRequest
	for i := 0; i < 30; i++ {
		state := "CLOSED"
		if i%3 == 0 {
			state = "OPEN"
		}
		item, _ := attributevalue.MarshalMap(Order{"bob", fmt.Sprintf("o-%02d", i), state, 1000 + i,
			float64(i * 10), nil})
		writes = append(writes, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
	}
	for start := 0; start < len(writes); start += 25 {
		end := start + 25
		if end > len(writes) {
			end = len(writes)
		}
		written, err := client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems: map[string][]types.WriteRequest{"Orders": writes[start:end]}})
		if err != nil || len(written.UnprocessedItems) != 0 {
			t.Fatalf("batch write: %v %v", err, written)
		}
	}
	read, err := client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{"Orders": {Keys: []map[string]types.AttributeValue{
			{"customer": &types.AttributeValueMemberS{Value: "bob"}, "orderId": &types.AttributeValueMemberS{Value: "o-04"}},
			{"customer": &types.AttributeValueMemberS{Value: "bob"}, "orderId": &types.AttributeValueMemberS{Value: "o-21"}},
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := orderIDs(t, read.Responses["Orders"])
	sort.Strings(got)
	expectIDs(t, "batch get", got, []string{"o-04", "o-21"})

	// A query with a sort-key condition and a filter, newest first.
	keyCondition := expression.Key("customer").Equal(expression.Value("bob")).
		And(expression.Key("orderId").Between(expression.Value("o-10"), expression.Value("o-19")))
	filter := expression.Name("amount").GreaterThanEqual(expression.Value(150))
	query, err := expression.NewBuilder().WithKeyCondition(keyCondition).WithFilter(filter).Build()
	if err != nil {
		t.Fatal(err)
	}
	between, err := client.Query(ctx, &dynamodb.QueryInput{
		TableName: aws.String("Orders"), KeyConditionExpression: query.KeyCondition(),
		FilterExpression: query.Filter(), ExpressionAttributeNames: query.Names(),
		ExpressionAttributeValues: query.Values(), ScanIndexForward: aws.Bool(false),
	})
	if err != nil {
		t.Fatal(err)
	}
	expectIDs(t, "between and filtered", orderIDs(t, between.Items),
		[]string{"o-19", "o-18", "o-17", "o-16", "o-15"})
	if between.ScannedCount != 10 {
		t.Fatalf("scanned %d", between.ScannedCount)
	}

	// The GSI, through the paginator, three items a page.
	indexCondition := expression.Key("state").Equal(expression.Value("OPEN")).
		And(expression.Key("placedAt").GreaterThan(expression.Value(1005)))
	onIndex, _ := expression.NewBuilder().WithKeyCondition(indexCondition).Build()
	pages := dynamodb.NewQueryPaginator(client, &dynamodb.QueryInput{
		TableName: aws.String("Orders"), IndexName: aws.String("byState"), Limit: aws.Int32(3),
		KeyConditionExpression: onIndex.KeyCondition(), ExpressionAttributeNames: onIndex.Names(),
		ExpressionAttributeValues: onIndex.Values(),
	})
	var open []string
	pageCount := 0
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pageCount++
		open = append(open, orderIDs(t, page.Items)...)
	}
	expectIDs(t, "open orders on the index", open,
		[]string{"o-06", "o-09", "o-12", "o-15", "o-18", "o-21", "o-24", "o-27"})
	if pageCount != 3 {
		t.Fatalf("%d pages", pageCount)
	}

	// A transaction whose condition check fails changes nothing, and says why.
	item, _ := attributevalue.MarshalMap(Order{"cat", "o-1", "OPEN", 1, 5, nil})
	_, err = client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String("Orders"), Item: item}},
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String("Orders"), Key: key,
			ConditionExpression:       aws.String("#s = :open"),
			ExpressionAttributeNames:  map[string]string{"#s": "state"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":open": &types.AttributeValueMemberS{Value: "OPEN"}}}},
	}})
	var canceled *types.TransactionCanceledException
	if !errors.As(err, &canceled) {
		t.Fatalf("transaction: %v", err)
	}
	codes := []string{}
	for _, reason := range canceled.CancellationReasons {
		codes = append(codes, aws.ToString(reason.Code))
	}
	expectIDs(t, "cancellation reasons", codes, []string{"None", "ConditionalCheckFailed"})
	missing, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String("Orders"),
		Key: map[string]types.AttributeValue{
			"customer": &types.AttributeValueMemberS{Value: "cat"},
			"orderId":  &types.AttributeValueMemberS{Value: "o-1"}}})
	if err != nil || missing.Item != nil {
		t.Fatalf("the canceled transaction's put: %v %v", err, missing.Item)
	}

	// Delete the table and wait for it to go.
	if _, err := client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String("Orders")}); err != nil {
		t.Fatal(err)
	}
	if err := dynamodb.NewTableNotExistsWaiter(client).Wait(ctx, &dynamodb.DescribeTableInput{
		TableName: aws.String("Orders")}, 10*time.Second); err != nil {
		t.Fatal(err)
	}
}
