#pragma once
// Placeholder: filled in by the work on `refbench run`.
