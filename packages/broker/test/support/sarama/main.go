// Sarama 1.22.1 (Debian's golang-github-shopify-sarama-dev) as an ordinary Go user drives it, against
// `klog serve`: the test builds this once and runs its commands, each printing one JSON object a line
// (the last line is the command's result), so the test asserts from what the client itself reported.
//
//	admin    <addr> <topic>           ClusterAdmin: create with configs, list, describe, alter, add
//	                                  partitions, delete records, delete the topic
//	produce  <addr> <topic> <n> <pfx> SyncProducer, idempotent: n keyed messages, one send each
//	consume  <addr> <topic> <group> <n>
//	                                  a consumer group reading n messages, marking each, committed at close
//	unset-version <addr> <topic>      Version left at Sarama's default: one send, one partition read
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

func emit(v map[string]interface{}) {
	line, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(line))
}

func fail(step string, err error) {
	emit(map[string]interface{}{"step": step, "error": err.Error()})
	os.Exit(1)
}

// config is Sarama's defaults but for a Version it knows (the protocol versions it sends follow from it),
// as a Sarama user sets it for a Kafka 2.x broker; SARAMA_VERSION chooses another.
func config() *sarama.Config {
	c := sarama.NewConfig()
	c.ClientID = "sarama-test"
	c.Version = sarama.V2_1_0_0
	if v := os.Getenv("SARAMA_VERSION"); v != "" {
		parsed, err := sarama.ParseKafkaVersion(v)
		if err != nil {
			fail("config", err)
		}
		c.Version = parsed
	}
	return c
}

func str(s string) *string { return &s }

// describe answers the topic's configs Sarama was told of: name → [value, isDefault, readOnly].
func describe(admin sarama.ClusterAdmin, topic string, names ...string) map[string]interface{} {
	entries, err := admin.DescribeConfig(sarama.ConfigResource{
		Type: sarama.TopicResource, Name: topic, ConfigNames: names,
	})
	if err != nil {
		fail("describe", err)
	}
	out := map[string]interface{}{}
	for _, e := range entries {
		out[e.Name] = map[string]interface{}{"value": e.Value, "default": e.Default, "readOnly": e.ReadOnly}
	}
	return out
}

func listed(admin sarama.ClusterAdmin) map[string]sarama.TopicDetail {
	topics, err := admin.ListTopics()
	if err != nil {
		fail("list", err)
	}
	return topics
}

func adminLife(addr, topic string) {
	c := config()
	admin, err := sarama.NewClusterAdmin([]string{addr}, c)
	if err != nil {
		fail("connect", err)
	}
	defer admin.Close()

	err = admin.CreateTopic(topic, &sarama.TopicDetail{
		NumPartitions:     1,
		ReplicationFactor: 1,
		ConfigEntries:     map[string]*string{"cleanup.policy": str("compact"), "retention.ms": str("3600000")},
	}, false)
	if err != nil {
		fail("create", err)
	}
	emit(map[string]interface{}{"step": "create"})

	// CreateTopic again: Kafka's TOPIC_ALREADY_EXISTS, as Sarama reports it.
	err = admin.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false)
	emit(map[string]interface{}{"step": "create-again", "error": fmt.Sprint(err)})

	// ListTopics: Metadata, then one DescribeConfigs for every topic; Sarama keeps the non-default configs.
	detail, ok := listed(admin)[topic]
	configs := map[string]string{}
	for name, value := range detail.ConfigEntries {
		configs[name] = *value
	}
	emit(map[string]interface{}{
		"step": "list", "found": ok, "partitions": detail.NumPartitions,
		"replicationFactor": detail.ReplicationFactor, "configs": configs,
	})

	emit(map[string]interface{}{
		"step": "describe", "configs": describe(admin, topic, "cleanup.policy", "retention.ms", "segment.bytes"),
	})

	// AlterConfigs replaces the topic's whole set of configs (cleanup.policy goes back to the default).
	if err := admin.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"retention.ms": str("7200000")}, false); err != nil {
		fail("alter", err)
	}
	emit(map[string]interface{}{
		"step": "alter", "configs": describe(admin, topic, "cleanup.policy", "retention.ms"),
	})
	// A config no Kafka knows: the broker's INVALID_CONFIG message, as AlterConfig returns it.
	err = admin.AlterConfig(sarama.TopicResource, topic,
		map[string]*string{"no.such.topic.config": str("true")}, false)
	emit(map[string]interface{}{"step": "alter-unknown", "error": fmt.Sprint(err)})

	if err := admin.CreatePartitions(topic, 3, nil, false); err != nil {
		fail("create-partitions", err)
	}
	meta, err := admin.DescribeTopics([]string{topic})
	if err != nil {
		fail("describe-topics", err)
	}
	emit(map[string]interface{}{"step": "create-partitions", "partitions": len(meta[0].Partitions)})

	// Five records on partition 0, then DeleteRecords below offset 3: the earliest offset moves to 3.
	pc := config()
	pc.Producer.Return.Successes = true
	pc.Producer.Partitioner = sarama.NewManualPartitioner
	client, err := sarama.NewClient([]string{addr}, pc)
	if err != nil {
		fail("client", err)
	}
	defer client.Close()
	producer, err := sarama.NewSyncProducerFromClient(client)
	if err != nil {
		fail("producer", err)
	}
	for i := 0; i < 5; i++ {
		if _, _, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic: topic, Partition: 0, Value: sarama.StringEncoder("v" + strconv.Itoa(i)),
		}); err != nil {
			fail("produce", err)
		}
	}
	if err := admin.DeleteRecords(topic, map[int32]int64{0: 3}); err != nil {
		fail("delete-records", err)
	}
	earliest, err := client.GetOffset(topic, 0, sarama.OffsetOldest)
	if err != nil {
		fail("earliest", err)
	}
	latest, err := client.GetOffset(topic, 0, sarama.OffsetNewest)
	if err != nil {
		fail("latest", err)
	}
	emit(map[string]interface{}{"step": "delete-records", "earliest": earliest, "latest": latest})

	if err := admin.DeleteTopic(topic); err != nil {
		fail("delete", err)
	}
	_, still := listed(admin)[topic]
	emit(map[string]interface{}{"step": "delete", "listed": still})
	err = admin.DeleteTopic(topic)
	emit(map[string]interface{}{"step": "delete-again", "error": fmt.Sprint(err)})
}

func produce(addr, topic string, n int, prefix string) {
	c := config()
	c.Producer.Idempotent = true
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Net.MaxOpenRequests = 1
	c.Producer.Return.Successes = true
	producer, err := sarama.NewSyncProducer([]string{addr}, c)
	if err != nil {
		fail("producer", err)
	}
	reports := [][]interface{}{}
	for i := 0; i < n; i++ {
		key := prefix + "-" + strconv.Itoa(i)
		partition, offset, err := producer.SendMessage(&sarama.ProducerMessage{
			Topic: topic, Key: sarama.StringEncoder(key), Value: sarama.StringEncoder("value of " + key),
			Headers: []sarama.RecordHeader{{Key: []byte("i"), Value: []byte(strconv.Itoa(i))}},
		})
		if err != nil {
			fail("produce", err)
		}
		reports = append(reports, []interface{}{key, partition, offset})
	}
	if err := producer.Close(); err != nil {
		fail("close", err)
	}
	emit(map[string]interface{}{"step": "produce", "reports": reports})
}

// reader marks each message it takes, up to its limit, and ends the session when it has them all.
type reader struct {
	mu      sync.Mutex
	limit   int
	records [][]interface{}
	claims  map[string][]int32
	done    context.CancelFunc
}

func (r *reader) Setup(s sarama.ConsumerGroupSession) error {
	r.mu.Lock()
	r.claims = s.Claims()
	r.mu.Unlock()
	return nil
}

func (r *reader) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (r *reader) ConsumeClaim(s sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for msg := range claim.Messages() {
		r.mu.Lock()
		if len(r.records) < r.limit {
			headers := map[string]string{}
			for _, h := range msg.Headers {
				headers[string(h.Key)] = string(h.Value)
			}
			r.records = append(r.records,
				[]interface{}{msg.Partition, msg.Offset, string(msg.Key), string(msg.Value), headers})
			s.MarkMessage(msg, "")
			if len(r.records) == r.limit {
				r.done()
			}
		}
		r.mu.Unlock()
	}
	return nil
}

func consume(addr, topic, group string, n int) {
	c := config()
	// Kafka's auto.offset.reset=earliest: a group with nothing committed starts at the beginning.
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Return.Errors = true
	cg, err := sarama.NewConsumerGroup([]string{addr}, group, c)
	if err != nil {
		fail("group", err)
	}
	errs := []string{}
	var errMu sync.Mutex
	go func() {
		for err := range cg.Errors() {
			errMu.Lock()
			errs = append(errs, err.Error())
			errMu.Unlock()
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	r := &reader{limit: n, done: cancel}
	// Consume returns at each rebalance; a user calls it again until done.
	for ctx.Err() == nil {
		if err := cg.Consume(ctx, []string{topic}, r); err != nil {
			fail("consume", err)
		}
	}
	// Close commits what was marked (the offset manager's last flush) and leaves the group.
	if err := cg.Close(); err != nil {
		fail("close", err)
	}
	sort.Slice(r.records, func(i, j int) bool {
		a, b := r.records[i], r.records[j]
		if a[0].(int32) != b[0].(int32) {
			return a[0].(int32) < b[0].(int32)
		}
		return a[1].(int64) < b[1].(int64)
	})
	errMu.Lock()
	defer errMu.Unlock()
	emit(map[string]interface{}{"step": "consume", "records": r.records, "claims": r.claims, "errors": errs})
}

// unsetVersion is what a user gets who leaves config.Version alone: Sarama 1.22's MinVersion (0.8.2),
// so Produce v0 and Fetch v0, which Kafka 4 no longer serves: each answered with its error code.
func unsetVersion(addr, topic string) {
	c := sarama.NewConfig()
	c.ClientID = "sarama-test"
	c.Producer.Return.Successes = true
	c.Consumer.Return.Errors = true
	emit(map[string]interface{}{"step": "version", "version": c.Version.String()})
	producer, err := sarama.NewSyncProducer([]string{addr}, c)
	if err != nil {
		fail("producer", err)
	}
	_, _, err = producer.SendMessage(&sarama.ProducerMessage{Topic: topic, Value: sarama.StringEncoder("v")})
	emit(map[string]interface{}{"step": "produce", "error": fmt.Sprint(err)})
	_ = producer.Close()
	consumer, err := sarama.NewConsumer([]string{addr}, c)
	if err != nil {
		fail("consumer", err)
	}
	defer consumer.Close()
	pc, err := consumer.ConsumePartition(topic, 0, sarama.OffsetOldest)
	if err != nil {
		emit(map[string]interface{}{"step": "consume", "error": err.Error()})
		return
	}
	defer pc.Close()
	select {
	case e := <-pc.Errors():
		emit(map[string]interface{}{"step": "consume", "error": e.Err.Error()})
	case m := <-pc.Messages():
		emit(map[string]interface{}{"step": "consume", "offset": m.Offset})
	case <-time.After(30 * time.Second):
		emit(map[string]interface{}{"step": "consume", "error": "nothing in 30 s"})
	}
}

func main() {
	if os.Getenv("SARAMA_LOG") != "" {
		// Sarama's own log, for finding out why a step failed.
		sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds)
	}
	// A hang is a failure the test reports, not a test timeout.
	go func() {
		time.Sleep(4 * time.Minute)
		fail("timeout", fmt.Errorf("still running after 4 minutes"))
	}()
	args := os.Args[1:]
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			fail("args", err)
		}
		return n
	}
	switch {
	case len(args) == 3 && args[0] == "admin":
		adminLife(args[1], args[2])
	case len(args) == 5 && args[0] == "produce":
		produce(args[1], args[2], atoi(args[3]), args[4])
	case len(args) == 3 && args[0] == "unset-version":
		unsetVersion(args[1], args[2])
	case len(args) == 5 && args[0] == "consume":
		consume(args[1], args[2], args[3], atoi(args[4]))
	default:
		fmt.Fprintln(os.Stderr, "usage: sarama admin <addr> <topic> | produce <addr> <topic> <n> <prefix> |"+
			" consume <addr> <topic> <group> <n>")
		os.Exit(2)
	}
}
