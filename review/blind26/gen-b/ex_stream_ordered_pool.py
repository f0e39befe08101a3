ID = "stream-ordered-pool"
EXT = "h"
STUDENT = "exercises/day088/stream_ordered_pool.h"
DESIGN = ("ONE EVENT PER BLOCK made ALL AT ONCE in the constructor (blocks events, timing off, whether or not a block is ever given back), "
          "found by the block's index in the chunk and recorded again on the giving stream at each give-back; the given-back blocks "
          "filed by index in a std::map of giving stream to a vector (oldest first), and a second map counting every stream's give-backs "
          "ever; an own take pops s's NEWEST index with no wait; then a fresh block; a steal picks, among the other streams with blocks "
          "listed, the one that has GIVEN BACK THE MOST so far, takes its OLDEST block and queues one cudaStreamWaitEvent of s on that "
          "block's event (no query, no host wait); the destructor destroys all the events of the table, then frees the chunk on the "
          "setup stream")
WRONGS = [
    dict(slug="steal-waits-for-the-blocks-left-on-the-givers-list",
         shows="the record and the time (lost overlap: more waits than blocks changing hands), and a race when the stolen block was the giver's last listed one (no wait at all: its fill may run while the giver's check still reads it; the errors count now and then, surely with SPIN_US)",
         mistake="the steal queues s's waits on the events of the blocks STILL on the giver's list, after taking the oldest off it ('wait for that stream's blocks'), instead of on the taken block's own event",
         why="s must come after the giver's work on the block it takes, and after nothing else: when others are left on the list their records are later in the giver's order, so s waits for work that holds none of its blocks (one wait per listed block, the streams overlapping less); when the taken block was the only one listed, the loop is empty and the block crosses streams with no wait",
         source="own",
         edits=[("        CHECK(cudaStreamWaitEvent(s, events_[slot], 0));\n",
                 "        for (int other : list) CHECK(cudaStreamWaitEvent(s, events_[other], 0));\n")]),
    dict(slug="other-streams-blocks-taken-before-the-untouched-ones",
         shows="the program's own counts and the record: fewer fresh allocations and more steals (each behind a wait on another stream) where an untouched block was there for the taking; the errors 0",
         mistake="allocate tries the steal before the fresh blocks ('fresh blocks are the last reserve, as RMM asks its upstream last'): the fresh test moved after the steal's search",
         why="the pool's contract hands out untouched blocks before it takes another stream's: a never-used block needs no wait, a stolen one costs s a wait on the giver; with the steal first, in the first rounds s waits for other streams' work while unused blocks lie in the chunk, and the fresh blocks are handed out only when no other stream has given anything back",
         source="own",
         edits=[("        if (!fresh_.empty()) {\n            char* p = fresh_.back();\n            fresh_.pop_back();\n            fresh++;\n            return p;\n        }\n        // Another stream's block",
                 "        // Another stream's block"),
                ("        if (giver == free_.end()) return nullptr;\n",
                 "        if (giver == free_.end()) {\n            if (fresh_.empty()) return nullptr;\n            char* p = fresh_.back();\n            fresh_.pop_back();\n            fresh++;\n            return p;\n        }\n")]),
    dict(slug="only-the-listed-blocks-events-destroyed",
         shows="other arguments only (a leak): with more blocks than the rounds ever take (bench 2 64: two rounds use some nine of 64 blocks) the untouched blocks' events are never destroyed, and with --keep the last round's blocks' events too; the default run gives every block back and has no fresh block left, so nothing leaks and every line is right",
         mistake="the destructor destroys the events of the blocks on the free lists ('the events that belong to given-back blocks'), not the whole table the constructor made",
         why="the constructor made an event for EVERY block: a block never handed out, or one still handed out when the pool ends, has an event too, which then is never destroyed",
         source="own",
         edits=[("        for (cudaEvent_t e : events_) CHECK(cudaEventDestroy(e));\n",
                 "        for (auto& kv : free_)\n            for (int slot : kv.second) CHECK(cudaEventDestroy(events_[slot]));\n")]),
    dict(slug="stolen-block-counted-as-own",
         shows="the program's own output: 'allocations: ... from the stream's own list, 8 fresh, 0 stolen', every steal counted with the own takes; the errors 0",
         mistake="the steal adds to own instead of stolen (own++ copied from the own take)",
         why="the counts main prints say where each block came from: a block another stream freed must be counted stolen; the program now reports that no block ever passed between streams, which is false (the waits are queued as before)",
         source="own",
         edits=[("        stolen++;\n", "        own++;\n")]),
]
