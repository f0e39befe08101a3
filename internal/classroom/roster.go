package classroom

import "github.com/cudalessons/lessons/internal/gradebook"

// Student is one line of the roster (roster.Read's): the class keeps
// what an LMS's roster says of them, for the gradebook's export.
type Student = gradebook.Person
