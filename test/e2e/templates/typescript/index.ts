// The program: `pulumi new` leaves it for you to write.
export {};
